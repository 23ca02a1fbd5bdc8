// Who may call what: built from the OpenAPI document's x-drover-role / x-drover-scope per operation.
import type { Role } from './client';

// alerts stands apart from the ladder: it may only post alerts, which operators and admins may too.
const RANK: Record<Role, number> = { alerts: 0, viewer: 1, operator: 2, admin: 3 };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

export interface OperationRule {
  method: string;
  template: string;
  role?: Role;
  scope?: string;
  regex: RegExp;
}

export interface Permissions {
  /** method + path template ("/api/v1/subscriptions/{id}/run") or a concrete path ("/api/v1/subscriptions/7/run") */
  can(method: string, path: string): boolean;
  rules: OperationRule[];
}

interface OpenApiDoc {
  paths?: Record<string, Record<string, { 'x-drover-role'?: string; 'x-drover-scope'?: string } | unknown>>;
}

function templateRegex(template: string): RegExp {
  const escaped = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') && part.endsWith('}') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${escaped}$`);
}

export function roleAtLeast(have: Role, need: Role): boolean {
  if (need === 'alerts') return have === 'alerts' || roleAtLeast(have, 'operator');
  if (have === 'alerts') return false;
  return (RANK[have] ?? 0) >= (RANK[need] ?? 99);
}

/**
 * A route is allowed when the caller's role ranks at least the operation's x-drover-role, and — for scope
 * "all_businesses" — the caller's token is not limited to some businesses. Routes without a role are public;
 * routes the document does not list are refused.
 */
export function buildPermissions(doc: OpenApiDoc | null | undefined, role: Role, bizIds: number[] = []): Permissions {
  const rules: OperationRule[] = [];
  for (const [template, ops] of Object.entries(doc?.paths ?? {})) {
    for (const [method, op] of Object.entries(ops ?? {})) {
      if (!METHODS.includes(method) || !op || typeof op !== 'object') continue;
      const o = op as { 'x-drover-role'?: string; 'x-drover-scope'?: string };
      const r = o['x-drover-role'];
      rules.push({
        method: method.toUpperCase(),
        template,
        role: r === 'viewer' || r === 'operator' || r === 'admin' || r === 'alerts' ? r : r === undefined ? undefined : 'admin',
        scope: o['x-drover-scope'],
        regex: templateRegex(template),
      });
    }
  }
  const exact = new Map(rules.map((r) => [`${r.method} ${r.template}`, r]));
  // Literal segments beat parameters: /api/v1/keys/{id}/accept vs a hypothetical /api/v1/keys/x/{y}.
  const byLiteralness = [...rules].sort((a, b) => b.template.replace(/\{[^}]+\}/g, '').length - a.template.replace(/\{[^}]+\}/g, '').length);

  function allowed(rule: OperationRule): boolean {
    if (!rule.role) return true;
    if (!roleAtLeast(role, rule.role)) return false;
    if (rule.scope === 'all_businesses' && bizIds.length > 0) return false;
    return true;
  }

  return {
    rules,
    can(method: string, path: string): boolean {
      const m = method.toUpperCase();
      const p = path.split('?')[0];
      const hit = exact.get(`${m} ${p}`);
      if (hit) return allowed(hit);
      const rule = byLiteralness.find((r) => r.method === m && r.regex.test(p));
      return rule ? allowed(rule) : false;
    },
  };
}
