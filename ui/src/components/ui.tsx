import { useState, type ReactNode } from 'react';
import { ApiError } from '../api/client';

export function ErrorBanner({ error, onClose }: { error: unknown; onClose?: () => void }) {
  if (!error) return null;
  let title = 'Error';
  let detail: string | undefined;
  let fields: Array<{ field: string; message: string }> = [];
  let status: number | undefined;
  if (error instanceof ApiError) {
    title = error.problem.title;
    detail = error.problem.detail;
    fields = error.problem.errors ?? [];
    status = error.status;
  } else if (error instanceof Error) {
    detail = error.message;
  } else {
    detail = String(error);
  }
  return (
    <div className="banner banner-error" role="alert" data-testid="error-banner">
      <div className="banner-body">
        <strong>
          {title}
          {status ? ` (${status})` : ''}
        </strong>
        {detail && <span> — {detail}</span>}
        {fields.length > 0 && (
          <ul className="field-errors">
            {fields.map((f, i) => (
              <li key={i}>
                <code>{f.field}</code>: {f.message}
              </li>
            ))}
          </ul>
        )}
      </div>
      {onClose && (
        <button type="button" className="btn-link" onClick={onClose} aria-label="Dismiss">
          ✕
        </button>
      )}
    </div>
  );
}

export function Notice({ children, kind = 'info' }: { children: ReactNode; kind?: 'info' | 'ok' | 'warn' }) {
  return <div className={`banner banner-${kind}`}>{children}</div>;
}

const STATUS_CLASS: Record<string, string> = {
  SUCCESS: 'ok',
  SUCCEEDED: 'ok',
  RUNNING: 'run',
  PENDING: 'pend',
  FAILED: 'bad',
  FAIL: 'bad',
  ERROR: 'bad',
  REVOKED: 'warn',
  PUBLISHED: 'pend',
  RECEIVED: 'pend',
  RETURNED: 'ok',
  TIMED_OUT: 'bad',
  AGENT_LOST: 'bad',
  CANCELLED: 'warn',
  SKIPPED: 'muted',
  STOPPED: 'muted',
  TERMINATED: 'muted',
  UNKNOWN: 'muted',
  ONLINE: 'ok',
  LOST: 'bad',
  OFFLINE: 'bad',
  ACCEPTED: 'ok',
  REJECTED: 'bad',
  DENIED: 'bad',
  OTHER_BUSINESS: 'warn',
  HOST_HAS_AGENT: 'warn',
  ENABLED: 'ok',
  DISABLED: 'muted',
  AVAILABLE: 'muted',
  TRUE: 'ok',
  FALSE: 'bad',
  NOT_CHANGE: 'muted',
  SKIP: 'warn',
  INSTALL: 'run',
  UNINSTALL: 'bad',
  PUSH_CONFIG: 'run',
  START: 'run',
  STOP: 'warn',
};

export function statusClass(status: string | undefined | null): string {
  return STATUS_CLASS[(status ?? '').toUpperCase()] ?? 'muted';
}

export function Badge({ status, testid }: { status: string | undefined | null; testid?: string }) {
  const s = status ?? 'UNKNOWN';
  return (
    <span className={`badge badge-${statusClass(s)}`} data-status={s} data-testid={testid}>
      {s}
    </span>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return <div className="muted pad">{what}…</div>;
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

export function Section({ title, actions, children, testid }: { title: ReactNode; actions?: ReactNode; children: ReactNode; testid?: string }) {
  return (
    <section className="card" data-testid={testid}>
      <div className="card-head">
        <h2>{title}</h2>
        {actions && <div className="actions">{actions}</div>}
      </div>
      <div className="card-body">{children}</div>
    </section>
  );
}

export function PageHead({ title, sub, actions }: { title: ReactNode; sub?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="page-head">
      <div>
        <h1>{title}</h1>
        {sub && <div className="muted">{sub}</div>}
      </div>
      {actions && <div className="actions">{actions}</div>}
    </div>
  );
}

export function JsonBlock({ value, testid }: { value: unknown; testid?: string }) {
  return (
    <pre className="json" data-testid={testid}>
      {typeof value === 'string' ? value : JSON.stringify(value, null, 2)}
    </pre>
  );
}

export function Pager({ offset, limit, count, total, onChange }: { offset: number; limit: number; count: number; total: number; onChange: (offset: number) => void }) {
  const label = total === 0 || count === 0 ? `0 of ${total}` : `${offset + 1}–${offset + count} of ${total}`;
  return (
    <div className="pager" data-testid="pager">
      <span>{label}</span>
      <button type="button" disabled={offset <= 0} onClick={() => onChange(Math.max(0, offset - limit))}>
        ‹ Prev
      </button>
      <button type="button" disabled={offset + count >= total} onClick={() => onChange(offset + limit)}>
        Next ›
      </button>
    </div>
  );
}

export function Tabs<T extends string>({ tabs, value, onChange }: { tabs: Array<{ id: T; label: ReactNode }>; value: T; onChange: (v: T) => void }) {
  return (
    <div className="tabs" role="tablist">
      {tabs.map((t) => (
        <button key={t.id} type="button" role="tab" aria-selected={value === t.id} className={value === t.id ? 'tab active' : 'tab'} onClick={() => onChange(t.id)}>
          {t.label}
        </button>
      ))}
    </div>
  );
}

/** A button that runs an async action, shows it is busy, and hands errors to onError. */
export function ActionButton({ label, run, onError, onDone, kind, confirm, testid }: { label: string; run: () => Promise<unknown>; onError: (e: unknown) => void; onDone?: (r: unknown) => void; kind?: 'primary' | 'danger'; confirm?: string; testid?: string }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className={kind ? `btn-${kind}` : undefined}
      disabled={busy}
      data-testid={testid}
      onClick={async () => {
        if (confirm && !window.confirm(confirm)) return;
        setBusy(true);
        onError(null);
        try {
          const r = await run();
          onDone?.(r);
        } catch (e) {
          onError(e);
        } finally {
          setBusy(false);
        }
      }}
    >
      {busy ? `${label}…` : label}
    </button>
  );
}

export function KeyValues({ rows }: { rows: Array<[string, ReactNode]> }) {
  return (
    <dl className="kv">
      {rows.map(([k, v]) => (
        <div key={k} className="kv-row">
          <dt>{k}</dt>
          <dd>{v ?? '—'}</dd>
        </div>
      ))}
    </dl>
  );
}
