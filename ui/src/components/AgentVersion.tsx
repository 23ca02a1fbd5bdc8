import { api } from '../api/client';
import { useLoad } from '../lib/hooks';
import { isOlder, newestVersion } from '../lib/versions';
import { useSession } from '../session';
import type { AgentPackage } from '../types';

/** The newest registered agent package version, when the caller may list packages and there is one. */
export function useNewestAgentPackage(): string | undefined {
  const { can } = useSession();
  const allowed = can('GET', '/api/v1/agent-packages');
  const packages = useLoad((signal) => (allowed ? api.get<AgentPackage[]>('/api/v1/agent-packages', { signal }) : Promise.resolve([])), [allowed]);
  return newestVersion((packages.data ?? []).map((p) => p.version));
}

/** An agent's version, flagged when a newer agent package is registered. */
export function AgentVersion({ version, newest }: { version?: string | null; newest?: string }) {
  const old = isOlder(version, newest);
  return (
    <span data-testid="agent-version" data-old={old}>
      <span className="mono">{version || '—'}</span>
      {old && (
        <span className="badge badge-warn version-old" data-testid="agent-version-old" title={`agent package ${newest} is registered`}>
          old — {newest} available
        </span>
      )}
    </span>
  );
}
