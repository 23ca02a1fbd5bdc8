// A small hash router: "#/subscriptions/7?tab=plan" → { name: 'subscription', params: { id: '7' }, query }.
import { useEffect, useState } from 'react';

export interface RouteDef {
  name: string;
  pattern: string;
}

export const ROUTES: RouteDef[] = [
  { name: 'overview', pattern: '/overview' },
  { name: 'inventory', pattern: '/inventory' },
  { name: 'host', pattern: '/hosts/:id' },
  { name: 'subscriptions', pattern: '/subscriptions' },
  { name: 'subscription-new', pattern: '/subscriptions/new' },
  { name: 'subscription', pattern: '/subscriptions/:id' },
  { name: 'task', pattern: '/tasks/:id' },
  { name: 'addons', pattern: '/addons' },
  { name: 'agents', pattern: '/agents' },
  { name: 'agent-install', pattern: '/agent-installs/:id' },
  { name: 'run', pattern: '/run' },
  { name: 'plans', pattern: '/plans' },
  { name: 'plan', pattern: '/plans/:id' },
  { name: 'diagnosis', pattern: '/diagnosis' },
  { name: 'diagnosis-detail', pattern: '/diagnoses/:id' },
  { name: 'events', pattern: '/events' },
  { name: 'audit', pattern: '/audit' },
];

export interface Route {
  name: string;
  params: Record<string, string>;
  query: URLSearchParams;
  path: string;
}

export function matchRoute(hash: string, routes: RouteDef[] = ROUTES): Route {
  const raw = hash.replace(/^#/, '') || '/overview';
  const qi = raw.indexOf('?');
  const path = (qi < 0 ? raw : raw.slice(0, qi)) || '/overview';
  const query = new URLSearchParams(qi < 0 ? '' : raw.slice(qi + 1));
  const parts = path.split('/').filter(Boolean);
  // literal routes first, so /subscriptions/new is not /subscriptions/:id
  const ordered = [...routes].sort((a, b) => Number(a.pattern.includes(':')) - Number(b.pattern.includes(':')));
  for (const r of ordered) {
    const pp = r.pattern.split('/').filter(Boolean);
    if (pp.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < pp.length; i++) {
      if (pp[i].startsWith(':')) params[pp[i].slice(1)] = decodeURIComponent(parts[i]);
      else if (pp[i] !== parts[i]) {
        ok = false;
        break;
      }
    }
    if (ok) return { name: r.name, params, query, path };
  }
  return { name: 'not-found', params: {}, query, path };
}

export function href(path: string): string {
  return `#${path}`;
}

export function navigate(path: string): void {
  if (typeof window !== 'undefined') window.location.hash = path;
}

export function useRoute(): Route {
  const [hash, setHash] = useState(() => (typeof window === 'undefined' ? '' : window.location.hash));
  useEffect(() => {
    const on = () => setHash(window.location.hash);
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return matchRoute(hash);
}
