import { useState } from 'react';
import { api } from '../api/client';
import { Graph } from '../components/Graph';
import { Badge, ErrorBanner, JsonBlock, Loading, PageHead, Section, Tabs } from '../components/ui';
import { fmtTime } from '../lib/format';
import { defaultDiagnosisName } from '../lib/diagnosis';
import { adjacencyToGraph } from '../lib/graphLayout';
import { useEvents, useLoad, useThrottled } from '../lib/hooks';
import { href, navigate } from '../router';
import { useSession } from '../session';
import type { Diagnosis, LibrarySummary, OperationSetDoc } from '../types';

export function PathList({ paths, labels, active, onPick, failed, succeeded }: { paths: number[][]; labels: Map<number, string>; active: number | null; onPick: (i: number | null) => void; failed?: number[][]; succeeded?: number[] }) {
  const same = (a?: number[], b?: number[]) => !!a && !!b && a.length === b.length && a.every((x, i) => x === b[i]);
  return (
    <ol className="paths" data-testid="path-list">
      {paths.map((p, i) => (
        <li key={i}>
          <button type="button" className={`path ${active === i ? 'active' : ''}`} onMouseEnter={() => onPick(i)} onFocus={() => onPick(i)} onClick={() => onPick(active === i ? null : i)}>
            {p.map((n) => labels.get(n) ?? n).join(' → ')}
          </button>
          {same(p, succeeded) && <Badge status="SUCCEEDED" />}
          {(failed ?? []).some((f) => same(f, p)) && <Badge status="FAILED" />}
        </li>
      ))}
    </ol>
  );
}

export function OperationSetView({ name }: { name: string }) {
  const doc = useLoad((signal) => api.get<OperationSetDoc>(`/api/v1/diagnosis/operation-sets/${encodeURIComponent(name)}`, { signal }), [name]);
  const [active, setActive] = useState<number | null>(null);
  const list = doc.data?.document?.spec?.adjacencyList ?? [];
  const g = adjacencyToGraph(list);
  const paths = doc.data?.paths ?? [];
  return (
    <Section title={`OperationSet ${name}`} testid="opset-view">
      <ErrorBanner error={doc.error} />
      {doc.loading && !doc.data ? <Loading /> : null}
      {doc.data && (
        <div className="graph-layout">
          <Graph nodes={g.nodes} edges={g.edges} labels={g.labels} highlight={active != null ? paths[active] : undefined} />
          <div>
            <h3>Paths</h3>
            <PathList paths={paths} labels={g.labels} active={active} onPick={setActive} />
          </div>
        </div>
      )}
    </Section>
  );
}

function StartDiagnosis({ sets, onStarted }: { sets: LibrarySummary[]; onStarted: () => void }) {
  const [opset, setOpset] = useState(sets[0]?.name ?? '');
  const [node, setNode] = useState('web-1');
  const [name, setName] = useState('');
  const [params, setParams] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="form form-grid"
      data-testid="diagnosis-form"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        setBusy(true);
        try {
          const parameters: Record<string, string> = {};
          for (const line of params.split('\n')) {
            const i = line.indexOf('=');
            if (i > 0) parameters[line.slice(0, i).trim()] = line.slice(i + 1).trim();
          }
          const body = {
            apiVersion: 'diagnosis.kubediag.org/v1',
            kind: 'Diagnosis',
            metadata: { name: name || defaultDiagnosisName(opset, node) },
            spec: { operationSet: opset, nodeName: node, ...(Object.keys(parameters).length ? { parameters } : {}) },
          };
          const r = await api.post<{ diagnoses?: Array<{ id: number }> }>('/api/v1/diagnoses', body);
          onStarted();
          const first = r?.diagnoses?.[0]?.id;
          if (first != null) navigate(`/diagnoses/${first}`);
        } catch (x) {
          setError(x);
        } finally {
          setBusy(false);
        }
      }}
    >
      <div className="span2">
        <ErrorBanner error={error} />
      </div>
      <label>
        OperationSet
        <select value={opset} onChange={(e) => setOpset(e.target.value)}>
          {sets.map((s) => (
            <option key={s.name}>{s.name}</option>
          ))}
        </select>
      </label>
      <label>
        Node name (host name)
        <input value={node} onChange={(e) => setNode(e.target.value)} required />
      </label>
      <label>
        Name (optional)
        <input value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        Parameters (key=value per line)
        <textarea rows={2} className="mono" value={params} onChange={(e) => setParams(e.target.value)} />
      </label>
      <div className="actions span2">
        <button type="submit" className="btn-primary" disabled={busy || !opset}>
          {busy ? 'Starting…' : 'Start diagnosis'}
        </button>
      </div>
    </form>
  );
}

type Tab = 'diagnoses' | 'library' | 'triggers';

export function DiagnosisPage() {
  const { can } = useSession();
  const [tab, setTab] = useState<Tab>('diagnoses');
  const [picked, setPicked] = useState<string | null>(null);
  const sets = useLoad((signal) => api.get<LibrarySummary[]>('/api/v1/diagnosis/operation-sets', { signal }), []);
  const diags = useLoad((signal) => api.get<Diagnosis[]>('/api/v1/diagnoses', { query: { limit: 200 }, signal }), []);
  const triggers = useLoad((signal) => (tab === 'triggers' ? api.get<LibrarySummary[]>('/api/v1/diagnosis/triggers', { signal }) : Promise.resolve(undefined)), [tab]);
  const refresh = useThrottled(diags.reload, 1000);
  useEvents('drover/diagnosis/*', refresh);
  return (
    <div>
      <PageHead title="Diagnosis" sub="OperationSets are graphs of operations; a diagnosis walks their paths on one host" />
      <Tabs<Tab>
        value={tab}
        onChange={setTab}
        tabs={[
          { id: 'diagnoses', label: 'Diagnoses' },
          { id: 'library', label: 'OperationSets' },
          { id: 'triggers', label: 'Triggers' },
        ]}
      />
      {tab === 'diagnoses' && (
        <>
          {can('POST', '/api/v1/diagnoses') && sets.data && (
            <Section title="Start a diagnosis">
              <StartDiagnosis sets={sets.data} onStarted={diags.reload} />
            </Section>
          )}
          <Section title="Newest diagnoses">
            <ErrorBanner error={diags.error} />
            <table className="table table-hover" data-testid="diagnosis-table">
              <thead>
                <tr>
                  <th>ID</th>
                  <th>Name</th>
                  <th>OperationSet</th>
                  <th>Host</th>
                  <th>Phase</th>
                  <th>Source</th>
                  <th>Created</th>
                </tr>
              </thead>
              <tbody>
                {(diags.data ?? []).map((d) => (
                  <tr key={d.id} className="clickable" onClick={() => navigate(`/diagnoses/${d.id}`)} data-testid="diagnosis-row">
                    <td>
                      <a href={href(`/diagnoses/${d.id}`)}>#{d.id}</a>
                    </td>
                    <td>{d.name}</td>
                    <td>{d.operation_set}</td>
                    <td>{d.host_name}</td>
                    <td data-status={d.phase}>
                      <Badge status={d.phase} />
                    </td>
                    <td>{d.source}</td>
                    <td className="small">{fmtTime(d.created_at)}</td>
                  </tr>
                ))}
                {diags.data && diags.data.length === 0 && (
                  <tr>
                    <td colSpan={7} className="muted">
                      No diagnoses yet.
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </Section>
        </>
      )}
      {tab === 'library' && (
        <>
          <ErrorBanner error={sets.error} />
          <section className="card">
            <table className="table table-hover" data-testid="opset-table">
              <thead>
                <tr>
                  <th>OperationSet</th>
                  <th>Built in</th>
                  <th>Detail</th>
                  <th>Updated</th>
                </tr>
              </thead>
              <tbody>
                {(sets.data ?? []).map((s) => (
                  <tr key={s.name} className={`clickable ${picked === s.name ? 'selected' : ''}`} onClick={() => setPicked(s.name)}>
                    <td>
                      <button type="button" className="btn-link">
                        {s.name}
                      </button>
                    </td>
                    <td>{s.builtin ? 'yes' : 'no'}</td>
                    <td>{s.detail}</td>
                    <td className="small">{fmtTime(s.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          {picked && <OperationSetView key={picked} name={picked} />}
        </>
      )}
      {tab === 'triggers' && (
        <Section title="Triggers">
          <ErrorBanner error={triggers.error} />
          {triggers.data && triggers.data.length === 0 && <p className="muted">No triggers are defined.</p>}
          {triggers.data && triggers.data.length > 0 && <JsonBlock value={triggers.data} />}
        </Section>
      )}
    </div>
  );
}
