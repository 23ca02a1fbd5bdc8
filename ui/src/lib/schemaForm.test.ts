import { describe, expect, it } from 'vitest';
import { convertForm, defaultsFor, fieldKind, initialRaw, setRaw, type JsonSchema } from './schemaForm';

// demo-exporter's real parameter schema, plus every other supported type
const schema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    scrape_interval: { type: 'integer', minimum: 1, maximum: 3600, default: 60 },
    ratio: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
    labels: { type: 'object', description: 'Extra labels on every sample' },
    api_token: { type: 'string', writeOnly: true, minLength: 8 },
    name: { type: 'string', pattern: '^[a-z][a-z0-9-]*$', default: 'demo' },
    debug: { type: 'boolean', default: true },
    level: { enum: ['info', 'debug', 'warn'], default: 'info' },
    port: { enum: [80, 443] },
    hosts: { type: 'array', items: { type: 'string', pattern: '^\\d' }, maxItems: 3 },
    codes: { type: 'array', items: { type: 'integer' } },
    tls: {
      type: 'object',
      required: ['cert'],
      properties: { cert: { type: 'string' }, verify: { type: 'boolean', default: false }, retries: { type: 'integer', default: 2 } },
    },
  },
  required: ['api_token'],
};

describe('schema form', () => {
  it('knows the kind of each field', () => {
    expect(fieldKind(schema.properties!.scrape_interval)).toBe('integer');
    expect(fieldKind(schema.properties!.labels)).toBe('json');
    expect(fieldKind(schema.properties!.level)).toBe('enum');
    expect(fieldKind(schema.properties!.hosts)).toBe('array');
    expect(fieldKind(schema.properties!.tls)).toBe('object');
  });

  it('starts from defaults, nested ones too', () => {
    const raw = initialRaw(schema);
    expect(raw.scrape_interval).toBe('60');
    expect(raw.debug).toBe(true);
    expect(raw.level).toBe('0');
    expect(raw.port).toBe('');
    expect(raw.tls).toEqual({ cert: '', verify: false, retries: '2' });
    const d = defaultsFor({ type: 'object', properties: { a: { type: 'integer', default: 5 }, b: { type: 'string' }, c: { type: 'boolean' } } });
    expect(d).toEqual({ a: 5, c: false });
  });

  it('converts a complete form to typed values', () => {
    let raw = initialRaw(schema);
    raw = setRaw(raw, 'api_token', 'secret-123');
    raw = setRaw(raw, 'ratio', '0.5');
    raw = setRaw(raw, 'labels', '{"team":"ops"}');
    raw = setRaw(raw, 'level', '2');
    raw = setRaw(raw, 'port', '1');
    raw = setRaw(raw, 'hosts', '10.0.0.1\n\n 10.0.0.2 ');
    raw = setRaw(raw, 'codes', '200\n404');
    raw = setRaw(raw, 'tls.cert', '/etc/cert.pem');
    const r = convertForm(schema, raw);
    expect(r.errors).toEqual({});
    expect(r.valid).toBe(true);
    expect(r.value).toEqual({
      scrape_interval: 60,
      ratio: 0.5,
      labels: { team: 'ops' },
      api_token: 'secret-123',
      name: 'demo',
      debug: true,
      level: 'warn',
      port: 443,
      hosts: ['10.0.0.1', '10.0.0.2'],
      codes: [200, 404],
      tls: { cert: '/etc/cert.pem', verify: false, retries: 2 },
    });
  });

  it('reports required fields, top-level and nested', () => {
    const raw = setRaw(initialRaw(schema), 'tls.verify', true);
    const r = convertForm(schema, raw);
    expect(r.valid).toBe(false);
    expect(r.errors.api_token).toBe('required');
    expect(r.errors['tls.cert']).toBe('required');
  });

  it('validates each type', () => {
    let raw = setRaw(initialRaw(schema), 'api_token', 'short');
    raw = setRaw(raw, 'scrape_interval', '0');
    raw = setRaw(raw, 'ratio', '0');
    raw = setRaw(raw, 'name', '9lives');
    raw = setRaw(raw, 'labels', '[1,2]');
    raw = setRaw(raw, 'hosts', 'a\nb\nc\nd');
    raw = setRaw(raw, 'codes', '1.5');
    raw = setRaw(raw, 'level', '7');
    raw = setRaw(raw, 'tls.cert', 'x');
    raw = setRaw(raw, 'tls.retries', 'two');
    const e = convertForm(schema, raw).errors;
    expect(e.api_token).toMatch(/at least 8/);
    expect(e.scrape_interval).toMatch(/≥ 1/);
    expect(e.ratio).toMatch(/> 0/);
    expect(e.name).toMatch(/must match/);
    expect(e.labels).toMatch(/JSON object/);
    expect(e.hosts).toBeDefined();
    expect(e.codes).toMatch(/whole number/);
    expect(e.level).toMatch(/one of/);
    expect(e['tls.retries']).toMatch(/whole number/);
    expect(convertForm(schema, setRaw(setRaw(initialRaw(schema), 'api_token', '12345678'), 'scrape_interval', '3601')).errors.scrape_interval).toMatch(/≤ 3600/);
    expect(convertForm(schema, setRaw(setRaw(initialRaw(schema), 'api_token', '12345678'), 'labels', '{oops')).errors.labels).toMatch(/not valid JSON/);
    expect(convertForm(schema, setRaw(setRaw(initialRaw(schema), 'api_token', '12345678'), 'scrape_interval', '12abc')).errors.scrape_interval).toMatch(/whole number/);
  });

  it('leaves empty optional fields out and keeps false booleans', () => {
    const r = convertForm({ type: 'object', properties: { s: { type: 'string' }, n: { type: 'number' }, b: { type: 'boolean' }, o: { type: 'object', properties: { x: { type: 'string' } } } } }, { s: '', n: ' ', b: false, o: { x: '' } });
    expect(r.value).toEqual({ b: false });
    expect(r.valid).toBe(true);
  });

  it('upgrade: stored params prefill, masked secrets start empty and are not required again', () => {
    const raw = initialRaw(schema, { scrape_interval: 30, api_token: '******' });
    expect(raw.scrape_interval).toBe('30');
    expect(raw.api_token).toBe('');
    expect(convertForm(schema, raw).errors.api_token).toBe('required');
    const r = convertForm(schema, setRaw(raw, 'tls.cert', 'c'), { stored: ['api_token', 'scrape_interval'] });
    expect(r.valid).toBe(true);
    expect(r.value.api_token).toBeUndefined();
    expect(r.value.scrape_interval).toBe(30);
  });
});
