// The API client: bearer token kept in sessionStorage only, JSON in and out, RFC 9457 problems as ApiError.

export interface FieldError {
  field: string;
  message: string;
}

export interface Problem {
  type?: string;
  title: string;
  status: number;
  detail?: string;
  code?: string;
  errors?: FieldError[];
}

export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem;
  constructor(problem: Problem) {
    super(problem.detail ? `${problem.title}: ${problem.detail}` : problem.title);
    this.name = 'ApiError';
    this.status = problem.status;
    this.problem = problem;
  }
}

const TOKEN_KEY = 'drover.token';

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null;
  }
}

export function getToken(): string | null {
  return storage()?.getItem(TOKEN_KEY) ?? null;
}

export function setToken(token: string): void {
  storage()?.setItem(TOKEN_KEY, token);
}

export function clearToken(): void {
  storage()?.removeItem(TOKEN_KEY);
}

type UnauthorizedHandler = (problem: Problem) => void;
let onUnauthorized: UnauthorizedHandler | null = null;

/** The app registers what a 401 does (back to the login page with the message). */
export function setUnauthorizedHandler(handler: UnauthorizedHandler | null): void {
  onUnauthorized = handler;
}

export function notifyUnauthorized(problem: Problem): void {
  onUnauthorized?.(problem);
}

/** Turns any failed response into a Problem, whether the server sent problem+json or not. */
export async function problemFrom(res: Response): Promise<Problem> {
  let text = '';
  try {
    text = await res.text();
  } catch {
    // body unreadable: fall through to the status line
  }
  if (text) {
    try {
      const body = JSON.parse(text);
      if (body && typeof body === 'object' && typeof body.title === 'string') {
        return { ...body, status: typeof body.status === 'number' ? body.status : res.status } as Problem;
      }
    } catch {
      // not JSON
    }
  }
  return {
    title: res.statusText || `HTTP ${res.status}`,
    status: res.status,
    detail: text ? text.slice(0, 500) : undefined,
  };
}

export interface RequestOptions {
  body?: unknown;
  signal?: AbortSignal;
  /** a token to use instead of the stored one (login check) */
  token?: string;
  /** skip the global 401 handler (login check) */
  noAuthRedirect?: boolean;
  query?: Record<string, string | number | boolean | undefined | null>;
  /** a YAML (or JSON) document sent as it was typed, as application/yaml, instead of a JSON-encoded body */
  yaml?: string;
}

export function withQuery(path: string, query?: RequestOptions['query']): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === '') continue;
    params.set(k, String(v));
  }
  const qs = params.toString();
  return qs ? `${path}${path.includes('?') ? '&' : '?'}${qs}` : path;
}

export async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const token = opts.token ?? getToken();
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  let body: BodyInit | undefined;
  if (opts.yaml !== undefined) {
    headers['Content-Type'] = 'application/yaml';
    body = opts.yaml;
  } else if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  let res: Response;
  try {
    res = await fetch(withQuery(path, opts.query), { method, headers, body, signal: opts.signal });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError({ title: 'Network error', status: 0, detail: (e as Error).message || String(e) });
  }
  if (!res.ok) {
    const problem = await problemFrom(res);
    if (res.status === 401 && !opts.noAuthRedirect) notifyUnauthorized(problem);
    throw new ApiError(problem);
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  if (!text) return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    return text as unknown as T;
  }
}

export const api = {
  get: <T>(path: string, opts?: RequestOptions) => request<T>('GET', path, opts),
  post: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('POST', path, { ...opts, body }),
  put: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('PUT', path, { ...opts, body }),
  del: <T>(path: string, opts?: RequestOptions) => request<T>('DELETE', path, opts),
};

export type Role = 'viewer' | 'operator' | 'admin' | 'alerts';

export interface WhoAmI {
  name: string;
  role: Role;
  bk_biz_ids: number[];
}

/** Checks a token: who it is, its role and businesses (GET /api/v1/whoami); a 401 means it is unknown, revoked or expired. */
export function whoami(token: string): Promise<WhoAmI> {
  return api.get<WhoAmI>('/api/v1/whoami', { token, noAuthRedirect: true });
}
