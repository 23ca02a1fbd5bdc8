import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { ErrorBanner, Loading, PageHead, Pager } from '../components/ui';
import { useDebounced, useLoad } from '../lib/hooks';
import { navigate } from '../router';
import type { Business, Host, Paged, Topology } from '../types';

export interface TopoFilter {
  bk_biz_id?: number;
  bk_set_id?: number;
  bk_module_id?: number;
  label: string;
}

const LIMIT = 50;

function BusinessNode({ biz, filter, onPick }: { biz: Business; filter: TopoFilter; onPick: (f: TopoFilter) => void }) {
  const [open, setOpen] = useState(true);
  const topo = useLoad((signal) => (open ? api.get<Topology>(`/api/v1/businesses/${biz.bk_biz_id}/topology`, { signal }) : Promise.resolve(undefined)), [biz.bk_biz_id, open]);
  const sel = (f: Partial<TopoFilter>) => filter.bk_biz_id === f.bk_biz_id && filter.bk_set_id === f.bk_set_id && filter.bk_module_id === f.bk_module_id;
  return (
    <li>
      <div className="tree-row">
        <button type="button" className="tree-toggle" aria-label={open ? 'Collapse' : 'Expand'} onClick={() => setOpen(!open)}>
          {open ? '▾' : '▸'}
        </button>
        <button type="button" className={`tree-node ${sel({ bk_biz_id: biz.bk_biz_id }) ? 'active' : ''}`} data-testid="topo-business" onClick={() => onPick({ bk_biz_id: biz.bk_biz_id, label: biz.bk_biz_name })}>
          {biz.bk_biz_name} <span className="muted small">#{biz.bk_biz_id}</span>
        </button>
      </div>
      {open && topo.error ? <ErrorBanner error={topo.error} /> : null}
      {open && topo.data && (
        <ul>
          {topo.data.sets.map((s) => (
            <li key={s.bk_set_id}>
              <div className="tree-row">
                <span className="tree-toggle" />
                <button type="button" className={`tree-node ${sel({ bk_biz_id: biz.bk_biz_id, bk_set_id: s.bk_set_id }) ? 'active' : ''}`} onClick={() => onPick({ bk_biz_id: biz.bk_biz_id, bk_set_id: s.bk_set_id, label: `${biz.bk_biz_name} / ${s.bk_set_name}` })}>
                  {s.bk_set_name}
                </button>
              </div>
              <ul>
                {s.modules.map((m) => (
                  <li key={m.bk_module_id}>
                    <div className="tree-row">
                      <span className="tree-toggle" />
                      <button
                        type="button"
                        className={`tree-node ${sel({ bk_biz_id: biz.bk_biz_id, bk_set_id: s.bk_set_id, bk_module_id: m.bk_module_id }) ? 'active' : ''}`}
                        data-testid="topo-module"
                        onClick={() => onPick({ bk_biz_id: biz.bk_biz_id, bk_set_id: s.bk_set_id, bk_module_id: m.bk_module_id, label: `${biz.bk_biz_name} / ${s.bk_set_name} / ${m.bk_module_name}` })}
                      >
                        {m.bk_module_name}
                        {m.idle ? <span className="muted small"> (idle)</span> : null}
                        <span className="count">{m.host_count ?? 0}</span>
                      </button>
                    </div>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

export function HostTable({ hosts, os }: { hosts: Host[]; os: string }) {
  const shown = os ? hosts.filter((h) => (h.os_type ?? '') === os) : hosts;
  return (
    <table className="table table-hover" data-testid="host-table">
      <thead>
        <tr>
          <th>ID</th>
          <th>Inner IP</th>
          <th>Host name</th>
          <th>OS</th>
          <th>Arch</th>
          <th>Cloud</th>
          <th>Modules</th>
          <th>Attributes</th>
        </tr>
      </thead>
      <tbody>
        {shown.map((h) => (
          <tr key={h.bk_host_id} data-testid="host-row" className="clickable" tabIndex={0} onClick={() => navigate(`/hosts/${h.bk_host_id}`)} onKeyDown={(e) => e.key === 'Enter' && navigate(`/hosts/${h.bk_host_id}`)}>
            <td>{h.bk_host_id}</td>
            <td className="mono">{h.bk_host_innerip}</td>
            <td>{h.bk_host_name || '—'}</td>
            <td>{h.os_type || '—'}</td>
            <td>{h.cpu_arch || '—'}</td>
            <td>{h.bk_cloud_id ?? 0}</td>
            <td>{(h.bk_module_ids ?? []).join(', ')}</td>
            <td className="small">
              {Object.entries(h.attributes ?? {})
                .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
                .join('  ')}
            </td>
          </tr>
        ))}
        {shown.length === 0 && (
          <tr>
            <td colSpan={8} className="muted">
              No hosts match.
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

export function Inventory() {
  const businesses = useLoad((signal) => api.get<Business[]>('/api/v1/businesses', { signal }), []);
  const [filter, setFilter] = useState<TopoFilter>({ label: 'All businesses' });
  const [q, setQ] = useState('');
  const [os, setOs] = useState('');
  const [offset, setOffset] = useState(0);
  const dq = useDebounced(q.trim(), 250);
  useEffect(() => setOffset(0), [dq, filter.bk_biz_id, filter.bk_set_id, filter.bk_module_id]);
  const hosts = useLoad(
    (signal) =>
      api.get<Paged<Host>>('/api/v1/hosts', {
        signal,
        query: { bk_biz_id: filter.bk_biz_id, bk_set_id: filter.bk_set_id, bk_module_id: filter.bk_module_id, q: dq || undefined, offset, limit: LIMIT },
      }),
    [filter.bk_biz_id, filter.bk_set_id, filter.bk_module_id, dq, offset],
  );
  const page = hosts.data;
  const osValues = Array.from(new Set((page?.items ?? []).map((h) => h.os_type ?? '').filter(Boolean))).sort();
  return (
    <div>
      <PageHead title="Inventory" sub="Businesses, sets and modules; hosts are paged by the server" />
      <div className="split">
        <aside className="card tree" data-testid="topo-tree">
          <div className="card-head">
            <h2>Topology</h2>
          </div>
          <div className="card-body">
            <button type="button" className={`tree-node ${filter.bk_biz_id == null ? 'active' : ''}`} onClick={() => setFilter({ label: 'All businesses' })}>
              All businesses
            </button>
            <ErrorBanner error={businesses.error} />
            {businesses.loading && !businesses.data ? <Loading /> : null}
            <ul className="tree-list">
              {(businesses.data ?? []).map((b) => (
                <BusinessNode key={b.bk_biz_id} biz={b} filter={filter} onPick={setFilter} />
              ))}
            </ul>
          </div>
        </aside>
        <section className="card grow">
          <div className="card-head">
            <h2>Hosts · {filter.label}</h2>
            <div className="actions">
              <label className="inline">
                <span className="sr-only">Search hosts</span>
                <input type="search" placeholder="Search IP or host name" value={q} onChange={(e) => setQ(e.target.value)} data-testid="host-search" />
              </label>
              <label className="inline">
                <span className="small muted">OS (this page)</span>
                <select value={os} onChange={(e) => setOs(e.target.value)}>
                  <option value="">any</option>
                  {osValues.map((o) => (
                    <option key={o} value={o}>
                      {o}
                    </option>
                  ))}
                </select>
              </label>
            </div>
          </div>
          <ErrorBanner error={hosts.error} />
          {page ? <HostTable hosts={page.items} os={os} /> : hosts.loading ? <Loading /> : null}
          {page && <Pager offset={page.offset ?? offset} limit={LIMIT} count={page.items.length} total={page.total} onChange={setOffset} />}
        </section>
      </div>
    </div>
  );
}
