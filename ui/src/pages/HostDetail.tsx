import { api, ApiError } from '../api/client';
import { AgentVersion, useNewestAgentPackage } from '../components/AgentVersion';
import { Badge, ErrorBanner, KeyValues, Loading, PageHead, Section } from '../components/ui';
import { fmtTime } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { href } from '../router';
import { useSession } from '../session';
import type { Agent, Host, HostPlugin } from '../types';

export function HostDetail({ id }: { id: string }) {
  const { can } = useSession();
  const host = useLoad((signal) => api.get<Host>(`/api/v1/hosts/${encodeURIComponent(id)}`, { signal }), [id]);
  const agent = useLoad(async (signal) => {
    const agents = await api.get<Agent[]>('/api/v1/agents', { signal });
    const a = agents.find((x) => String(x.bk_host_id) === id);
    if (!a) return { agent: undefined, grains: undefined };
    let grains: Record<string, unknown> | undefined;
    try {
      grains = await api.get<Record<string, unknown>>(`/api/v1/agents/${encodeURIComponent(a.id)}/grains`, { signal });
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 404)) throw e;
    }
    return { agent: a, grains };
  }, [id]);
  const newest = useNewestAgentPackage();
  const plugins = useLoad((signal) => api.get<HostPlugin[]>(`/api/v1/hosts/${encodeURIComponent(id)}/plugins`, { signal }), [id]);
  const h = host.data;
  return (
    <div>
      <PageHead title={h ? `${h.bk_host_name || h.bk_host_innerip}` : `Host ${id}`} sub={<a href={href('/inventory')}>← Inventory</a>} />
      <ErrorBanner error={host.error} />
      {host.loading && !h ? <Loading /> : null}
      <div className="grid2">
        {h && (
          <Section title="Host">
            <KeyValues
              rows={[
                ['bk_host_id', h.bk_host_id],
                ['Inner IP', <span className="mono">{h.bk_host_innerip}</span>],
                ['Host name', h.bk_host_name],
                ['Business', h.bk_biz_id],
                ['Cloud', h.bk_cloud_id ?? 0],
                ['OS', h.os_type],
                ['Arch', h.cpu_arch],
                ['Modules', (h.bk_module_ids ?? []).join(', ')],
                ...Object.entries(h.attributes ?? {}).map(([k, v]) => [`attr: ${k}`, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string]),
              ]}
            />
          </Section>
        )}
        {can('GET', '/api/v1/agents') && (
          <Section title="Agent" testid="agent-facts">
            <ErrorBanner error={agent.error} />
            {agent.data && !agent.data.agent && <p className="muted">No agent is linked to this host.</p>}
            {agent.data?.agent && (
              <KeyValues
                rows={[
                  ['Agent id', agent.data.agent.id],
                  ['Online', <Badge status={agent.data.agent.online ? 'ONLINE' : 'LOST'} />],
                  ['Key', agent.data.agent.key_state],
                  ['Version', <AgentVersion version={agent.data.agent.version} newest={newest} />],
                  ['Last seen', fmtTime(agent.data.agent.last_seen)],
                ]}
              />
            )}
            {agent.data?.grains && (
              <>
                <h3>Facts (grains)</h3>
                <KeyValues rows={Object.entries(agent.data.grains).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string])} />
              </>
            )}
          </Section>
        )}
      </div>
      <Section title="Deployed plugins">
        <ErrorBanner error={plugins.error} />
        <table className="table" data-testid="host-plugins">
          <thead>
            <tr>
              <th>Plugin</th>
              <th>Version</th>
              <th>Status</th>
              <th>Port</th>
              <th>Subscription</th>
              <th>Step</th>
              <th>Files</th>
            </tr>
          </thead>
          <tbody>
            {(plugins.data ?? []).map((p, i) => (
              <tr key={i}>
                <td>{p.plugin}</td>
                <td>{p.version ?? '—'}</td>
                <td>
                  <Badge status={p.status} />
                </td>
                <td>{p.port ?? '—'}</td>
                <td>{p.subscription_id != null ? <a href={href(`/subscriptions/${p.subscription_id}`)}>{p.subscription ?? `#${p.subscription_id}`}</a> : '—'}</td>
                <td>{p.step_id}</td>
                <td className="small mono">{(p.files ?? []).join('\n')}</td>
              </tr>
            ))}
            {plugins.data && plugins.data.length === 0 && (
              <tr>
                <td colSpan={7} className="muted">
                  Nothing deployed on this host.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </Section>
    </div>
  );
}
