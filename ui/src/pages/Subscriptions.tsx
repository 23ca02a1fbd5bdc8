import { api } from '../api/client';
import { ErrorBanner, Loading, PageHead } from '../components/ui';
import { fmtTime } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { href, navigate } from '../router';
import { useSession } from '../session';
import type { Subscription, SubscriptionSpec } from '../types';

function steps(spec?: SubscriptionSpec): string {
  const st = spec?.steps ?? [];
  return st.map((s) => `${s.id ?? '?'}${s.config?.plugin_name ? ` (${s.config.plugin_name})` : ''}`).join(', ');
}

export function Subscriptions() {
  const { can } = useSession();
  const subs = useLoad((signal) => api.get<Subscription[]>('/api/v1/subscriptions', { signal }), []);
  return (
    <div>
      <PageHead
        title="Subscriptions"
        sub="Plugins deployed to a scope of hosts, kept as desired"
        actions={
          can('POST', '/api/v1/subscriptions') && (
            <a className="button btn-primary" href={href('/subscriptions/new')} data-testid="new-subscription">
              New subscription
            </a>
          )
        }
      />
      <ErrorBanner error={subs.error} />
      {subs.loading && !subs.data ? <Loading /> : null}
      <section className="card">
        <table className="table table-hover" data-testid="subscription-table">
          <thead>
            <tr>
              <th>ID</th>
              <th>Name</th>
              <th>Business</th>
              <th>Scope</th>
              <th>Steps</th>
              <th>Enabled</th>
              <th>Updated</th>
            </tr>
          </thead>
          <tbody>
            {(subs.data ?? []).map((s) => (
              <tr key={s.id} className="clickable" data-testid="subscription-row" onClick={() => navigate(`/subscriptions/${s.id}`)}>
                <td>{s.id}</td>
                <td>
                  <a href={href(`/subscriptions/${s.id}`)}>{s.name}</a>
                </td>
                <td>{s.bk_biz_id}</td>
                <td>
                  {s.object_type} / {s.node_type}
                </td>
                <td className="small">{steps(s.spec)}</td>
                <td>
                  <span className={`badge badge-${s.enabled ? 'ok' : 'muted'}`}>{s.enabled ? 'enabled' : 'disabled'}</span>
                </td>
                <td className="small">{fmtTime(s.updated_at)}</td>
              </tr>
            ))}
            {subs.data && subs.data.length === 0 && (
              <tr>
                <td colSpan={7} className="muted">
                  No subscriptions yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </section>
    </div>
  );
}
