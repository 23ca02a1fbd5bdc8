import { useState } from 'react';
import { api } from '../api/client';
import { ErrorBanner, PageHead, Pager } from '../components/ui';
import { fmtTime } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { useSession } from '../session';
import type { AuditEntry, Paged } from '../types';

const LIMIT = 50;

export function AuditPage() {
  const { can } = useSession();
  const [offset, setOffset] = useState(0);
  const allowed = can('GET', '/api/v1/audit');
  const page = useLoad((signal) => (allowed ? api.get<Paged<AuditEntry>>('/api/v1/audit', { query: { offset, limit: LIMIT }, signal }) : Promise.resolve(undefined)), [offset, allowed]);
  if (!allowed) return <p className="pad muted">The audit log is for administrators.</p>;
  const p = page.data;
  return (
    <div>
      <PageHead title="Audit" sub="Mutations, newest first" />
      <ErrorBanner error={page.error} />
      <section className="card">
        <table className="table" data-testid="audit-table">
          <thead>
            <tr>
              <th>ID</th>
              <th>At</th>
              <th>Actor</th>
              <th>Method</th>
              <th>Path</th>
              <th>Status</th>
              <th>Detail</th>
            </tr>
          </thead>
          <tbody>
            {(p?.items ?? []).map((a) => (
              <tr key={a.id}>
                <td>{a.id}</td>
                <td className="small">{fmtTime(a.at)}</td>
                <td>{a.actor}</td>
                <td>{a.method}</td>
                <td className="mono small">{a.path}</td>
                <td>
                  <span className={`badge badge-${a.status < 400 ? 'ok' : 'bad'}`}>{a.status}</span>
                </td>
                <td className="small">{a.detail}</td>
              </tr>
            ))}
            {p && p.items.length === 0 && (
              <tr>
                <td colSpan={7} className="muted">
                  Nothing audited yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
        {p && <Pager offset={p.offset ?? offset} limit={LIMIT} count={p.items.length} total={p.total} onChange={setOffset} />}
      </section>
    </div>
  );
}
