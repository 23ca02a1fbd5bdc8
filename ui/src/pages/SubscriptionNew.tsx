import { useState } from 'react';
import { api } from '../api/client';
import { ErrorBanner, JsonBlock, PageHead, Section } from '../components/ui';
import { href, navigate } from '../router';

export interface SubscriptionForm {
  name: string;
  bk_biz_id: string;
  node_type: 'TOPO' | 'INSTANCE';
  /** TOPO: "module:20, set:10"; INSTANCE: host ids "1, 2" */
  nodes: string;
  plugin: string;
  version: string;
  params: string;
  run_immediately: boolean;
}

export const TEMPLATE = {
  name: 'my exporters',
  scope: { bk_biz_id: 2, object_type: 'HOST', node_type: 'TOPO', nodes: [{ bk_obj_id: 'module', bk_inst_id: 20 }] },
  steps: [{ id: 'exporter', type: 'PLUGIN', config: { plugin_name: 'demo-exporter', plugin_version: 'latest', config_templates: [] }, params: { context: { scrape_interval: 30 } } }],
  run_immediately: true,
};

/** The common fields of the form → a NodeMan-style SubscriptionSpec (throws on bad input). */
export function specFromForm(f: SubscriptionForm): Record<string, unknown> {
  const biz = Number(f.bk_biz_id);
  if (!Number.isInteger(biz)) throw new Error('bk_biz_id must be a number');
  const nodes = f.nodes
    .split(/[,\s]+/)
    .filter(Boolean)
    .map((tok) => {
      if (f.node_type === 'INSTANCE') {
        const id = Number(tok);
        if (!Number.isInteger(id)) throw new Error(`host id "${tok}" is not a number`);
        return { bk_host_id: id };
      }
      const m = /^(biz|set|module):(\d+)$/.exec(tok);
      if (!m) throw new Error(`node "${tok}" should look like module:20 or set:10`);
      return { bk_obj_id: m[1], bk_inst_id: Number(m[2]) };
    });
  let context: unknown = {};
  if (f.params.trim()) {
    context = JSON.parse(f.params);
  }
  return {
    name: f.name,
    scope: { bk_biz_id: biz, object_type: 'HOST', node_type: f.node_type, nodes },
    steps: [{ id: f.plugin, type: 'PLUGIN', config: { plugin_name: f.plugin, plugin_version: f.version || 'latest', config_templates: [] }, params: { context } }],
    run_immediately: f.run_immediately,
  };
}

export function SubscriptionNew() {
  const [mode, setMode] = useState<'form' | 'yaml'>('form');
  const [form, setForm] = useState<SubscriptionForm>({ name: 'my exporters', bk_biz_id: '2', node_type: 'TOPO', nodes: 'module:20', plugin: 'demo-exporter', version: 'latest', params: '{"scrape_interval": 30}', run_immediately: true });
  const [yaml, setYaml] = useState(JSON.stringify(TEMPLATE, null, 2));
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof SubscriptionForm>(k: K, v: SubscriptionForm[K]) => setForm({ ...form, [k]: v });

  return (
    <div>
      <PageHead title="New subscription" sub={<a href={href('/subscriptions')}>← Subscriptions</a>} />
      <ErrorBanner error={error} />
      <Section
        title="Specification"
        actions={
          <div className="tabs">
            <button type="button" className={mode === 'form' ? 'tab active' : 'tab'} onClick={() => setMode('form')}>
              Form
            </button>
            <button
              type="button"
              className={mode === 'yaml' ? 'tab active' : 'tab'}
              onClick={() => {
                try {
                  setYaml(JSON.stringify(specFromForm(form), null, 2));
                } catch {
                  // keep the text as it is
                }
                setMode('yaml');
              }}
            >
              YAML / JSON
            </button>
          </div>
        }
      >
        <form
          className="form"
          data-testid="subscription-form"
          onSubmit={async (e) => {
            e.preventDefault();
            setError(null);
            setBusy(true);
            try {
              type Started = { subscription?: { id: number }; task_id?: number };
              const r =
                mode === 'form'
                  ? await api.post<Started>('/api/v1/subscriptions', specFromForm(form))
                  : await api.post<Started>('/api/v1/subscriptions', undefined, { yaml });
              setResult(r);
              if (r?.subscription?.id != null) navigate(`/subscriptions/${r.subscription.id}`);
            } catch (x) {
              setError(x);
            } finally {
              setBusy(false);
            }
          }}
        >
          {mode === 'form' ? (
            <div className="form-grid">
              <label>
                Name
                <input value={form.name} onChange={(e) => set('name', e.target.value)} required />
              </label>
              <label>
                Business (bk_biz_id)
                <input value={form.bk_biz_id} inputMode="numeric" onChange={(e) => set('bk_biz_id', e.target.value)} required />
              </label>
              <label>
                Node type
                <select value={form.node_type} onChange={(e) => set('node_type', e.target.value as SubscriptionForm['node_type'])}>
                  <option value="TOPO">TOPO (sets / modules)</option>
                  <option value="INSTANCE">INSTANCE (hosts)</option>
                </select>
              </label>
              <label>
                Nodes {form.node_type === 'TOPO' ? '(module:20, set:10)' : '(host ids: 1, 2)'}
                <input value={form.nodes} onChange={(e) => set('nodes', e.target.value)} />
              </label>
              <label>
                Plugin
                <input value={form.plugin} onChange={(e) => set('plugin', e.target.value)} required />
              </label>
              <label>
                Version
                <input value={form.version} onChange={(e) => set('version', e.target.value)} />
              </label>
              <label className="span2">
                Parameters (JSON, the step's params.context)
                <textarea rows={4} className="mono" value={form.params} onChange={(e) => set('params', e.target.value)} />
              </label>
              <label className="inline">
                <input type="checkbox" checked={form.run_immediately} onChange={(e) => set('run_immediately', e.target.checked)} /> Run immediately
              </label>
            </div>
          ) : (
            <label>
              SubscriptionSpec (YAML, or JSON, which is YAML too)
              <textarea rows={22} className="mono" value={yaml} onChange={(e) => setYaml(e.target.value)} spellCheck={false} data-testid="subscription-yaml" />
            </label>
          )}
          <div className="actions">
            <button type="submit" className="btn-primary" disabled={busy}>
              {busy ? 'Creating…' : 'Create'}
            </button>
          </div>
        </form>
      </Section>
      {result != null && (
        <Section title="Answer">
          <JsonBlock value={result} />
        </Section>
      )}
    </div>
  );
}
