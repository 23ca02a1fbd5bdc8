import { useState } from 'react';
import { api } from '../api/client';
import { SchemaForm } from '../components/SchemaForm';
import { Badge, ErrorBanner, KeyValues, Loading, PageHead, Section, Tabs } from '../components/ui';
import { fmtTime } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { convertForm, initialRaw, isMasked, type JsonSchema, type RawObject } from '../lib/schemaForm';
import { useSession } from '../session';
import type { AddonInfo, PackageInfo, Registry } from '../types';

/** What GET /api/v1/addons/{name}/schema answers: the parameters a version takes, as a JSON Schema. */
interface AddonSchema {
  name: string;
  version: string;
  registry?: string;
  schema?: JsonSchema;
}

/** The schema to build the form from; an addon without parameters gets an empty object schema. */
export function schemaOf(answer: AddonSchema | undefined): JsonSchema {
  const s = answer?.schema;
  return s && typeof s === 'object' && Object.keys(s).length > 0 ? s : { type: 'object', properties: {} };
}

function AddonForm({ addon, mode, onDone }: { addon: AddonInfo; mode: 'enable' | 'upgrade'; onDone: () => void }) {
  const versions = addon.available_versions?.length ? addon.available_versions : addon.installed_version ? [addon.installed_version] : [];
  const [version, setVersion] = useState(versions[versions.length - 1] ?? '');
  const schemaAnswer = useLoad(
    (signal) => api.get<AddonSchema>(`/api/v1/addons/${encodeURIComponent(addon.name)}/schema`, { query: version ? { version } : {}, signal }),
    [addon.name, version],
  );
  const detail = useLoad((signal) => (mode === 'upgrade' ? api.get<AddonInfo>(`/api/v1/addons/${encodeURIComponent(addon.name)}`, { signal }) : Promise.resolve(addon)), [addon.name, mode]);
  const schema = schemaOf(schemaAnswer.data);
  const stored = mode === 'upgrade' ? detail.data?.params ?? {} : undefined;
  const key = `${addon.name}@${version}:${schemaAnswer.data?.version ?? ''}:${detail.data ? 'd' : ''}`;
  const [state, setState] = useState<{ key: string; raw: RawObject } | null>(null);
  const raw = state && state.key === key ? state.raw : initialRaw(schema, stored);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [answer, setAnswer] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (dryRun: boolean) => {
    const storedKeys = stored ? Object.keys(stored).filter((k) => stored[k] !== undefined) : [];
    const r = convertForm(schema, raw, { stored: storedKeys });
    setErrors(r.errors);
    if (!r.valid) return;
    setBusy(true);
    setError(null);
    try {
      const res =
        mode === 'enable'
          ? await api.post('/api/v1/addons', { addon: version ? `${addon.name}@${version}` : addon.name, params: r.value, dry_run: dryRun || undefined })
          : await api.post(`/api/v1/addons/${encodeURIComponent(addon.name)}/upgrade`, { addon: version ? `${addon.name}@${version}` : addon.name, params: r.value, dry_run: dryRun || undefined });
      setAnswer(res);
      if (!dryRun) onDone();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="form"
      data-testid="addon-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        submit(false);
      }}
    >
      <h3>
        {mode === 'enable' ? 'Enable' : 'Upgrade / reconfigure'} {addon.name}
      </h3>
      <ErrorBanner error={error ?? schemaAnswer.error ?? detail.error} />
      <label>
        Version
        <select value={version} onChange={(e) => setVersion(e.target.value)}>
          {versions.map((v) => (
            <option key={v}>{v}</option>
          ))}
        </select>
      </label>
      {mode === 'upgrade' && <p className="small muted">Stored parameters are merged with these; leave a secret empty to keep it.</p>}
      {schemaAnswer.loading && !schemaAnswer.data ? <Loading what="Loading the parameter schema" /> : <SchemaForm schema={schema} raw={raw} errors={errors} onChange={(r) => setState({ key, raw: r })} />}
      {Object.keys(errors).length > 0 && <div className="banner banner-error">Fix the highlighted fields ({Object.keys(errors).length}).</div>}
      <div className="actions">
        <button type="button" onClick={() => submit(true)} disabled={busy}>
          Dry run
        </button>
        <button type="submit" className="btn-primary" disabled={busy} data-testid="addon-submit">
          {busy ? 'Sending…' : mode === 'enable' ? 'Enable' : 'Upgrade'}
        </button>
      </div>
      {answer != null && <ChangeView change={answer as AddonChange} />}
    </form>
  );
}

/** What POST /api/v1/addons and …/upgrade answer. */
interface AddonChange {
  addon: string;
  version: string;
  dry_run: boolean;
  steps?: Array<{ name: string; version: string; registry: string; action: string; required_by?: string[] }>;
  notes?: string | null;
}

/** An enable or upgrade answer: the addons in install order, then the addon's rendered NOTES. */
function ChangeView({ change }: { change: AddonChange }) {
  return (
    <div data-testid="addon-answer">
      <h4>
        {change.dry_run ? 'Dry run: nothing changed. ' : ''}
        {change.addon} {change.version}
      </h4>
      <table className="table">
        <thead>
          <tr>
            <th>#</th>
            <th>Addon</th>
            <th>Version</th>
            <th>Registry</th>
            <th>Action</th>
            <th>Required by</th>
          </tr>
        </thead>
        <tbody>
          {(change.steps ?? []).map((st, i) => (
            <tr key={st.name}>
              <td>{i + 1}</td>
              <td>{st.name}</td>
              <td>{st.version}</td>
              <td>{st.registry}</td>
              <td>{st.action}</td>
              <td>{(st.required_by ?? []).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {change.notes && (
        <>
          <h4>NOTES</h4>
          <pre className="log" data-testid="addon-notes">{change.notes}</pre>
        </>
      )}
    </div>
  );
}

function AddonDetail({ name, onChanged }: { name: string; onChanged: () => void }) {
  const { can } = useSession();
  const a = useLoad((signal) => api.get<AddonInfo>(`/api/v1/addons/${encodeURIComponent(name)}`, { signal }), [name]);
  const [form, setForm] = useState<'enable' | 'upgrade' | null>(null);
  const [error, setError] = useState<unknown>(null);
  const d = a.data;
  const enabled = d?.status === 'enabled';
  return (
    <Section
      title={`Addon ${name}`}
      testid="addon-detail"
      actions={
        d && (
          <>
            {!enabled && can('POST', '/api/v1/addons') && (
              <button type="button" className="btn-primary" onClick={() => setForm('enable')} data-testid="addon-enable">
                Enable
              </button>
            )}
            {enabled && can('POST', '/api/v1/addons/{name}/upgrade') && (
              <button type="button" onClick={() => setForm('upgrade')} data-testid="addon-upgrade">
                Upgrade / reconfigure
              </button>
            )}
            {enabled && can('DELETE', '/api/v1/addons/{name}') && (
              <button
                type="button"
                className="btn-danger"
                onClick={async () => {
                  if (!window.confirm(`Disable ${name} and delete its stored parameters?`)) return;
                  try {
                    await api.del(`/api/v1/addons/${encodeURIComponent(name)}`);
                    a.reload();
                    onChanged();
                  } catch (e) {
                    setError(e);
                  }
                }}
              >
                Disable
              </button>
            )}
          </>
        )
      }
    >
      <ErrorBanner error={error ?? a.error} />
      {d && (
        <KeyValues
          rows={[
            ['Status', <Badge status={d.status} />],
            ['Installed', d.installed_version],
            ['Registry', d.registry],
            ['Available', (d.available_versions ?? []).join(', ')],
            ['Description', d.description],
            ['Dependencies', (d.dependencies ?? []).map((x) => `${x.name} ${x.constraint ?? ''} → ${x.installed_version ?? 'missing'}${x.satisfied === false ? ' (unsatisfied)' : ''}`).join('; ') || 'none'],
            ['Enabled at', fmtTime(d.enabled_at)],
            ['Params', <ParamList params={d.params} />],
          ]}
        />
      )}
      {d && form && <AddonForm key={form} addon={d} mode={form} onDone={() => { a.reload(); onChanged(); }} />}
    </Section>
  );
}

function ParamList({ params }: { params?: Record<string, unknown> }) {
  const e = Object.entries(params ?? {});
  if (!e.length) return <span className="muted">none</span>;
  return (
    <span className="mono small">
      {e.map(([k, v]) => (
        <span key={k} className="param">
          {k}={isMasked(v) ? <span className="masked">{String(v)}</span> : JSON.stringify(v)}{' '}
        </span>
      ))}
    </span>
  );
}

type Tab = 'addons' | 'packages' | 'registries';

export function Addons() {
  const [tab, setTab] = useState<Tab>('addons');
  const [picked, setPicked] = useState<string | null>(null);
  const addons = useLoad((signal) => api.get<{ addons: AddonInfo[]; skipped?: unknown[]; unreadable_registries?: Record<string, string> }>('/api/v1/addons', { signal }), []);
  const packages = useLoad((signal) => (tab === 'packages' ? api.get<PackageInfo[]>('/api/v1/packages', { signal }) : Promise.resolve(undefined)), [tab]);
  const registries = useLoad((signal) => (tab === 'registries' ? api.get<Registry[]>('/api/v1/registries', { signal }) : Promise.resolve(undefined)), [tab]);
  const unreadable = Object.entries(addons.data?.unreadable_registries ?? {});
  return (
    <div>
      <PageHead title="Packages and addons" sub="Registries offer addons; enabling one stores its package and parameters" />
      <Tabs<Tab>
        value={tab}
        onChange={setTab}
        tabs={[
          { id: 'addons', label: 'Addons' },
          { id: 'packages', label: 'Packages' },
          { id: 'registries', label: 'Registries' },
        ]}
      />
      {tab === 'addons' && (
        <>
          <ErrorBanner error={addons.error} />
          {unreadable.length > 0 && <div className="banner banner-warn">Unreadable registries: {unreadable.map(([k, v]) => `${k}: ${v}`).join('; ')}</div>}
          <section className="card">
            <table className="table table-hover" data-testid="addon-table">
              <thead>
                <tr>
                  <th>Addon</th>
                  <th>Status</th>
                  <th>Installed</th>
                  <th>Available</th>
                  <th>Registry</th>
                  <th>Description</th>
                </tr>
              </thead>
              <tbody>
                {(addons.data?.addons ?? []).map((a) => (
                  <tr key={a.name} className={`clickable ${picked === a.name ? 'selected' : ''}`} onClick={() => setPicked(a.name)} data-testid="addon-row">
                    <td>
                      <button type="button" className="btn-link">
                        {a.name}
                      </button>
                    </td>
                    <td>
                      <Badge status={a.status} />
                    </td>
                    <td>{a.installed_version ?? '—'}</td>
                    <td className="small">{(a.available_versions ?? []).join(', ')}</td>
                    <td>{a.registry}</td>
                    <td className="small">{a.description}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          {picked && <AddonDetail key={picked} name={picked} onChanged={addons.reload} />}
        </>
      )}
      {tab === 'packages' && (
        <section className="card">
          <ErrorBanner error={packages.error} />
          <table className="table" data-testid="package-table">
            <thead>
              <tr>
                <th>Package</th>
                <th>Version</th>
                <th>Category</th>
                <th>Dependencies</th>
                <th>Size</th>
                <th>Source</th>
                <th>Uploaded</th>
              </tr>
            </thead>
            <tbody>
              {(packages.data ?? []).map((p) => (
                <tr key={`${p.name}@${p.version}`}>
                  <td>{p.name}</td>
                  <td>{p.version}</td>
                  <td>{p.category}</td>
                  <td className="small">{(p.metadata?.dependencies ?? []).map((d) => `${d.name} ${d.version ?? ''}`).join(', ') || '—'}</td>
                  <td>{p.size_bytes != null ? `${p.size_bytes} B` : '—'}</td>
                  <td>{p.source}</td>
                  <td className="small">{fmtTime(p.uploaded_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {tab === 'registries' && (
        <section className="card">
          <ErrorBanner error={registries.error} />
          <table className="table" data-testid="registry-table">
            <thead>
              <tr>
                <th>#</th>
                <th>Name</th>
                <th>Type</th>
                <th>URL</th>
                <th>Added</th>
              </tr>
            </thead>
            <tbody>
              {(registries.data ?? []).map((r) => (
                <tr key={r.name}>
                  <td>{r.position}</td>
                  <td>{r.name}</td>
                  <td>{r.type}</td>
                  <td className="mono small">
                    {r.url}
                    {r.insecure && (
                      <>
                        {' '}
                        <span className="badge badge-warn" title="read in clear over the network: anyone on the path could change what it serves">
                          insecure
                        </span>
                      </>
                    )}
                  </td>
                  <td className="small">{fmtTime(r.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </div>
  );
}
