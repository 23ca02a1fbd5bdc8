import { describe, expect, it } from 'vitest';
import { buildPermissions } from './perms';
// the server's OpenAPI document, trimmed to what the permission table reads (see /api/v1/openapi.json)
import real from './fixtures/openapi-roles.json';

const doc = {
  paths: {
    '/api/v1/openapi.json': { get: { summary: 'doc' } },
    '/api/v1/subscriptions': { get: { 'x-drover-role': 'viewer', 'x-drover-scope': 'business' }, post: { 'x-drover-role': 'operator', 'x-drover-scope': 'business' } },
    '/api/v1/subscriptions/{id}/run': { post: { 'x-drover-role': 'operator', 'x-drover-scope': 'business' } },
    '/api/v1/subscriptions/{id}/plan': { get: { 'x-drover-role': 'viewer' }, post: { 'x-drover-role': 'viewer' } },
    '/api/v1/keys/{id}/accept': { post: { 'x-drover-role': 'admin', 'x-drover-scope': 'business' } },
    '/api/v1/addons': { get: { 'x-drover-role': 'viewer', 'x-drover-scope': 'shared' }, post: { 'x-drover-role': 'admin', 'x-drover-scope': 'all_businesses' } },
    '/api/v1/audit': { get: { 'x-drover-role': 'admin', 'x-drover-scope': 'all_businesses' } },
    parameters: {},
  },
};

describe('permissions from openapi', () => {
  it('viewer: reads only', () => {
    const p = buildPermissions(doc, 'viewer');
    expect(p.can('GET', '/api/v1/subscriptions')).toBe(true);
    expect(p.can('POST', '/api/v1/subscriptions')).toBe(false);
    expect(p.can('POST', '/api/v1/subscriptions/{id}/run')).toBe(false);
    expect(p.can('POST', '/api/v1/subscriptions/{id}/plan')).toBe(true);
    expect(p.can('GET', '/api/v1/audit')).toBe(false);
    expect(p.can('get', '/api/v1/openapi.json')).toBe(true);
  });

  it('operator: runs, but no admin routes', () => {
    const p = buildPermissions(doc, 'operator');
    expect(p.can('POST', '/api/v1/subscriptions/{id}/run')).toBe(true);
    expect(p.can('POST', '/api/v1/subscriptions/12/run')).toBe(true);
    expect(p.can('POST', '/api/v1/keys/host-1/accept')).toBe(false);
    expect(p.can('POST', '/api/v1/addons')).toBe(false);
  });

  it('admin: everything; all_businesses routes only for tokens on all businesses', () => {
    const all = buildPermissions(doc, 'admin');
    expect(all.can('POST', '/api/v1/keys/{id}/accept')).toBe(true);
    expect(all.can('POST', '/api/v1/addons')).toBe(true);
    expect(all.can('GET', '/api/v1/audit?offset=50')).toBe(true);
    const some = buildPermissions(doc, 'admin', [2]);
    expect(some.can('POST', '/api/v1/addons')).toBe(false);
    expect(some.can('GET', '/api/v1/audit')).toBe(false);
    expect(some.can('POST', '/api/v1/keys/host-1/accept')).toBe(true);
  });

  it('refuses unknown routes and methods', () => {
    const p = buildPermissions(doc, 'admin');
    expect(p.can('DELETE', '/api/v1/subscriptions')).toBe(false);
    expect(p.can('GET', '/api/v1/nothing')).toBe(false);
    expect(p.can('POST', '/api/v1/subscriptions/1/run/extra')).toBe(false);
    expect(buildPermissions(null, 'admin').can('GET', '/api/v1/subscriptions')).toBe(false);
  });

  it('matches the real contract', () => {
    const v = buildPermissions(real as never, 'viewer');
    const o = buildPermissions(real as never, 'operator');
    expect(v.can('GET', '/api/v1/hosts')).toBe(true);
    expect(v.can('POST', '/api/v1/jobs')).toBe(false);
    expect(o.can('POST', '/api/v1/jobs')).toBe(true);
    expect(o.can('POST', '/api/v1/subscriptions/1/revoke')).toBe(true);
    expect(o.can('DELETE', '/api/v1/keys/host-1')).toBe(false);
    expect(o.can('POST', '/api/v1/agents/host-1/link')).toBe(false);
    // every operation with a role is decided by it
    const a = buildPermissions(real as never, 'admin');
    for (const r of a.rules) expect(a.can(r.method, r.template)).toBe(true);
    const viewerWrites = v.rules.filter((r) => r.method !== 'GET' && v.can(r.method, r.template)).map((r) => `${r.method} ${r.template}`);
    expect(viewerWrites).toEqual(['POST /api/v1/subscriptions/{id}/plan']);
    // an alerts token posts alerts and nothing else; operators may post them too
    const alerts = buildPermissions(real as never, 'alerts');
    expect(alerts.rules.filter((r) => r.role && alerts.can(r.method, r.template)).map((r) => `${r.method} ${r.template}`))
      .toEqual(['POST /api/v1/alerts']);
    expect(o.can('POST', '/api/v1/alerts')).toBe(true);
    expect(v.can('POST', '/api/v1/alerts')).toBe(false);
  });
});
