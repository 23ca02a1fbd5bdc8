// A form from a JSON schema (the subset addon parameters use): defaults, raw input state, conversion to typed values
// and validation with per-field messages keyed by a dotted path.

export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  format?: string;
  writeOnly?: boolean;
  [key: string]: unknown;
}

/**
 * Raw form state: strings for text/number inputs, booleans for checkboxes, the index (as a string, '' = none) for enums,
 * one-per-line text for arrays of scalars, nested records for objects with properties, JSON text for free objects.
 */
export type RawValue = string | boolean | RawObject;
export interface RawObject {
  [key: string]: RawValue;
}

export type FieldKind = 'string' | 'integer' | 'number' | 'boolean' | 'enum' | 'array' | 'object' | 'json';

export function schemaType(schema: JsonSchema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null');
  if (schema.type) return schema.type;
  if (schema.properties) return 'object';
  if (schema.enum) return undefined;
  return undefined;
}

export function fieldKind(schema: JsonSchema): FieldKind {
  if (Array.isArray(schema.enum) && schema.enum.length) return 'enum';
  const t = schemaType(schema);
  switch (t) {
    case 'string':
      return 'string';
    case 'integer':
      return 'integer';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array': {
      const it = schema.items ? schemaType(schema.items) : 'string';
      return it === 'string' || it === 'integer' || it === 'number' || it === undefined ? 'array' : 'json';
    }
    case 'object':
      return schema.properties && Object.keys(schema.properties).length ? 'object' : 'json';
    default:
      return 'json';
  }
}

function rawFromValue(schema: JsonSchema, value: unknown): RawValue {
  const kind = fieldKind(schema);
  switch (kind) {
    case 'boolean':
      return value === true;
    case 'enum': {
      const i = (schema.enum ?? []).findIndex((e) => JSON.stringify(e) === JSON.stringify(value));
      return i < 0 ? '' : String(i);
    }
    case 'string':
      return typeof value === 'string' ? value : value == null ? '' : String(value);
    case 'integer':
    case 'number':
      return typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
    case 'array':
      return Array.isArray(value) ? value.map((v) => String(v)).join('\n') : '';
    case 'object': {
      const obj: RawObject = {};
      const src = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
      for (const [k, sub] of Object.entries(schema.properties ?? {})) {
        obj[k] = rawFromValue(sub, k in src ? src[k] : sub.default);
      }
      return obj;
    }
    case 'json':
      return value === undefined ? '' : JSON.stringify(value, null, 2);
  }
}

/**
 * The initial raw state: existing values (an addon's stored params) win over defaults. Masked values ("******", what
 * the server shows for secrets) and writeOnly fields start empty, so an untouched secret is not sent back.
 */
export function initialRaw(schema: JsonSchema, current?: Record<string, unknown>): RawObject {
  const obj: RawObject = {};
  for (const [k, sub] of Object.entries(schema.properties ?? {})) {
    let v: unknown = sub.default;
    if (current && k in current) {
      const c = current[k];
      v = isMasked(c) ? undefined : c;
    }
    if (sub.writeOnly && current) v = undefined;
    obj[k] = rawFromValue(sub, v);
  }
  return obj;
}

export function isMasked(v: unknown): boolean {
  return typeof v === 'string' && /^\*{3,}$/.test(v);
}

/** Default values as typed JSON (what an untouched form submits). */
export function defaultsFor(schema: JsonSchema): Record<string, unknown> {
  return convertForm(schema, initialRaw(schema)).value;
}

export interface ConvertResult {
  value: Record<string, unknown>;
  errors: Record<string, string>;
  valid: boolean;
}

const isEmptyRaw = (r: RawValue | undefined) => r === undefined || (typeof r === 'string' && r.trim() === '');

/** Converts raw form state to typed values and validates them. Empty optional fields are left out. */
export function convertForm(schema: JsonSchema, raw: RawObject, opts: { stored?: Iterable<string> } = {}): ConvertResult {
  const errors: Record<string, string> = {};
  // an upgrade merges with the stored parameters: a top-level field already stored is not required again
  const stored = new Set(opts.stored ?? []);
  const relaxed = stored.size ? { ...schema, required: (schema.required ?? []).filter((k) => !stored.has(k)) } : schema;
  const value = convertObject(relaxed, raw, '', errors) ?? {};
  return { value, errors, valid: Object.keys(errors).length === 0 };
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function convertObject(schema: JsonSchema, raw: RawObject, path: string, errors: Record<string, string>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [k, sub] of Object.entries(schema.properties ?? {})) {
    const p = join(path, k);
    const r = raw[k];
    const kind = fieldKind(sub);
    if (kind !== 'object' && kind !== 'boolean' && isEmptyRaw(r)) {
      if (required.has(k)) errors[p] = 'required';
      continue;
    }
    const v = convertValue(sub, r, p, errors);
    if (v !== undefined) out[k] = v;
    else if (required.has(k) && !(p in errors)) errors[p] = 'required';
  }
  return out;
}

function convertValue(schema: JsonSchema, raw: RawValue | undefined, path: string, errors: Record<string, string>): unknown {
  const kind = fieldKind(schema);
  switch (kind) {
    case 'boolean':
      return raw === true;
    case 'enum': {
      const opts = schema.enum ?? [];
      const i = Number(raw);
      if (typeof raw !== 'string' || !/^\d+$/.test(raw) || i >= opts.length) {
        errors[path] = `must be one of ${opts.map((o) => JSON.stringify(o)).join(', ')}`;
        return undefined;
      }
      return opts[i];
    }
    case 'string': {
      const s = String(raw ?? '');
      const err = checkString(schema, s);
      if (err) errors[path] = err;
      return s;
    }
    case 'integer':
    case 'number': {
      const s = String(raw ?? '').trim();
      const n = parseNumber(s, kind === 'integer');
      if (n === null) {
        errors[path] = kind === 'integer' ? 'must be a whole number' : 'must be a number';
        return undefined;
      }
      const err = checkNumber(schema, n);
      if (err) errors[path] = err;
      return n;
    }
    case 'array': {
      const items = String(raw ?? '')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '');
      const itemSchema = schema.items ?? { type: 'string' };
      const itemKind = fieldKind(itemSchema);
      const out: unknown[] = [];
      items.forEach((item, i) => {
        const p = `${path}[${i}]`;
        if (itemKind === 'integer' || itemKind === 'number') {
          const n = parseNumber(item, itemKind === 'integer');
          if (n === null) errors[path] = `line ${i + 1}: ${itemKind === 'integer' ? 'must be a whole number' : 'must be a number'}`;
          else {
            const err = checkNumber(itemSchema, n);
            if (err) errors[path] = `line ${i + 1}: ${err}`;
            out.push(n);
          }
        } else if (itemKind === 'enum') {
          const hit = (itemSchema.enum ?? []).find((e) => String(e) === item);
          if (hit === undefined) errors[path] = `line ${i + 1}: must be one of ${(itemSchema.enum ?? []).join(', ')}`;
          out.push(hit ?? item);
        } else {
          const err = checkString(itemSchema, item);
          if (err) errors[path] = `line ${i + 1}: ${err}`;
          out.push(item);
        }
        void p;
      });
      if (schema.minItems != null && out.length < schema.minItems) errors[path] = `needs at least ${schema.minItems} item(s)`;
      if (schema.maxItems != null && out.length > schema.maxItems) errors[path] = `allows at most ${schema.maxItems} item(s)`;
      return out;
    }
    case 'object': {
      const sub = raw && typeof raw === 'object' ? raw : {};
      const v = convertObject(schema, sub, path, errors);
      return v && Object.keys(v).length ? v : undefined;
    }
    case 'json': {
      const s = String(raw ?? '').trim();
      if (!s) return undefined;
      let v: unknown;
      try {
        v = JSON.parse(s);
      } catch (e) {
        errors[path] = `not valid JSON: ${(e as Error).message}`;
        return undefined;
      }
      const t = schemaType(schema);
      if (t === 'object' && (v === null || typeof v !== 'object' || Array.isArray(v))) errors[path] = 'must be a JSON object';
      else if (t === 'array' && !Array.isArray(v)) errors[path] = 'must be a JSON array';
      return v;
    }
  }
}

function parseNumber(s: string, integer: boolean): number | null {
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return null;
  const n = Number(s);
  if (!Number.isFinite(n)) return null;
  if (integer && !Number.isInteger(n)) return null;
  return n;
}

function checkNumber(schema: JsonSchema, n: number): string | null {
  if (schema.minimum != null && n < schema.minimum) return `must be ≥ ${schema.minimum}`;
  if (schema.maximum != null && n > schema.maximum) return `must be ≤ ${schema.maximum}`;
  if (schema.exclusiveMinimum != null && n <= schema.exclusiveMinimum) return `must be > ${schema.exclusiveMinimum}`;
  if (schema.exclusiveMaximum != null && n >= schema.exclusiveMaximum) return `must be < ${schema.exclusiveMaximum}`;
  return null;
}

function checkString(schema: JsonSchema, s: string): string | null {
  if (schema.minLength != null && s.length < schema.minLength) return `must be at least ${schema.minLength} characters`;
  if (schema.maxLength != null && s.length > schema.maxLength) return `must be at most ${schema.maxLength} characters`;
  if (schema.pattern) {
    let re: RegExp | null = null;
    try {
      re = new RegExp(schema.pattern, 'u');
    } catch {
      re = null; // a pattern JS cannot compile is left to the server
    }
    if (re && !re.test(s)) return `must match ${schema.pattern}`;
  }
  return null;
}

/** Sets a raw value at a dotted path (immutably). */
export function setRaw(raw: RawObject, path: string, value: RawValue): RawObject {
  const [head, ...rest] = path.split('.');
  if (!rest.length) return { ...raw, [head]: value };
  const child = raw[head];
  return { ...raw, [head]: setRaw(child && typeof child === 'object' ? child : {}, rest.join('.'), value) };
}
