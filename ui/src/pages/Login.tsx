import { useState } from 'react';
import { ErrorBanner } from '../components/ui';

export function Login({ error, onLogin }: { error: unknown; onLogin: (token: string) => Promise<void> }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<unknown>(null);
  const shown = err ?? error;
  return (
    <div className="login-wrap">
      <form
        className="login card"
        data-testid="login-form"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setErr(null);
          try {
            await onLogin(token.trim());
          } catch (x) {
            setErr(x);
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1>
          <span className="logo" aria-hidden="true">◆</span> Drover console
        </h1>
        <p className="muted">Paste an API token. It is kept in this browser tab only and forgotten when you sign out or close the tab.</p>
        <ErrorBanner error={shown} />
        <label htmlFor="token">Bearer token</label>
        <input id="token" type="password" autoComplete="off" spellCheck={false} value={token} onChange={(e) => setToken(e.target.value)} data-testid="token-input" autoFocus />
        <button type="submit" className="btn-primary" disabled={busy || !token.trim()} data-testid="login-submit">
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </div>
  );
}
