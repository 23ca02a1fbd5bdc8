// The "Install agents" form as a POST /api/v1/agent-installs body (model: AgentInstallRequest).
import type { FieldError } from '../api/client';

export interface InstallHost {
  address: string;
  port: number;
}

export interface InstallForm {
  hosts: string;
  port: string;
  user: string;
  auth: 'key' | 'password';
  privateKey: string;
  password: string;
  jump: string;
  bizId: string;
  concurrency: string;
  packageVersion: string;
  masters: string;
}

export interface InstallRequest {
  hosts: InstallHost[];
  ssh_user: string;
  ssh_private_key?: string;
  ssh_password?: string;
  jump?: string;
  bk_biz_id: number;
  concurrency?: number;
  package_version?: string;
  masters?: string[];
}

function port(text: string): number | null {
  return /^\d{1,5}$/.test(text) && Number(text) >= 1 && Number(text) <= 65535 ? Number(text) : null;
}

/**
 * Hosts one per line or separated by commas (or spaces): "10.0.1.5", "web-3.example:2222", "[fd00::5]:22". A host
 * without a port gets the form's. Errors name the entry; the server checks the addresses themselves.
 */
export function parseHosts(text: string, defaultPort: number): { hosts: InstallHost[]; errors: string[] } {
  const hosts: InstallHost[] = [];
  const errors: string[] = [];
  for (const entry of text.split(/[\s,;]+/).filter(Boolean)) {
    const m = /^\[([^\]]+)\]:(\d+)$/.exec(entry) ?? /^([^:]+):(\d+)$/.exec(entry);
    if (!m) {
      hosts.push({ address: entry.replace(/^\[(.*)\]$/, '$1'), port: defaultPort });
      continue;
    }
    const p = port(m[2]);
    if (p === null) errors.push(`${entry}: the port must be 1 to 65535`);
    else hosts.push({ address: m[1], port: p });
  }
  return { hosts, errors };
}

/** The request body, or the fields to fix first; the credentials go in the body only. */
export function installRequest(f: InstallForm): { body: InstallRequest; errors: [] } | { body: null; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const defaultPort = port(f.port.trim());
  if (defaultPort === null) errors.push({ field: 'port', message: 'must be 1 to 65535' });
  const parsed = parseHosts(f.hosts, defaultPort ?? 22);
  if (parsed.hosts.length === 0 && parsed.errors.length === 0) errors.push({ field: 'hosts', message: 'give at least one host' });
  errors.push(...parsed.errors.map((message) => ({ field: 'hosts', message })));
  if (!f.user.trim()) errors.push({ field: 'ssh_user', message: 'is required' });
  const secret = f.auth === 'key' ? f.privateKey : f.password;
  if (!secret) errors.push({ field: f.auth === 'key' ? 'ssh_private_key' : 'ssh_password', message: 'is required' });
  if (!/^\d+$/.test(f.bizId.trim())) errors.push({ field: 'bk_biz_id', message: 'pick a business' });
  const concurrency = f.concurrency.trim();
  if (concurrency && !/^\d{1,3}$/.test(concurrency)) errors.push({ field: 'concurrency', message: 'must be a number of hosts' });
  if (errors.length) return { body: null, errors };
  const masters = f.masters.split(/[\s,]+/).filter(Boolean);
  return {
    body: {
      hosts: parsed.hosts,
      ssh_user: f.user.trim(),
      ...(f.auth === 'key' ? { ssh_private_key: f.privateKey } : { ssh_password: f.password }),
      ...(f.jump.trim() ? { jump: f.jump.trim() } : {}),
      bk_biz_id: Number(f.bizId.trim()),
      ...(concurrency ? { concurrency: Number(concurrency) } : {}),
      ...(f.packageVersion ? { package_version: f.packageVersion } : {}),
      ...(masters.length ? { masters } : {}),
    },
    errors: [],
  };
}
