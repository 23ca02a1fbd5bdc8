import { useCallback, useEffect, useMemo, useState } from 'react';
import { api, clearToken, getToken, setToken, setUnauthorizedHandler, whoami, type WhoAmI } from './api/client';
import { buildPermissions, type Permissions } from './api/perms';
import { ErrorBanner } from './components/ui';
import { href, useRoute, type Route } from './router';
import { SessionContext, type Session } from './session';
import { Login } from './pages/Login';
import { Overview } from './pages/Overview';
import { Inventory } from './pages/Inventory';
import { HostDetail } from './pages/HostDetail';
import { Subscriptions } from './pages/Subscriptions';
import { SubscriptionNew } from './pages/SubscriptionNew';
import { SubscriptionDetail } from './pages/SubscriptionDetail';
import { TaskView } from './pages/TaskView';
import { Addons } from './pages/Addons';
import { RunPage } from './pages/Run';
import { AgentInstalls } from './pages/AgentInstalls';
import { AgentInstallView } from './pages/AgentInstallView';
import { Plans } from './pages/Plans';
import { PlanDetail } from './pages/PlanDetail';
import { DiagnosisPage } from './pages/Diagnosis';
import { DiagnosisDetail } from './pages/DiagnosisDetail';
import { EventsPage } from './pages/Events';
import { AuditPage } from './pages/Audit';

export interface NavItem {
  path: string;
  label: string;
  /** the route names that light this entry up */
  routes: string[];
  /** the read a caller needs to see the page */
  needs: [string, string];
}

export const NAV: NavItem[] = [
  { path: '/overview', label: 'Overview', routes: ['overview'], needs: ['GET', '/api/v1/agents'] },
  { path: '/inventory', label: 'Inventory', routes: ['inventory', 'host'], needs: ['GET', '/api/v1/hosts'] },
  { path: '/subscriptions', label: 'Subscriptions', routes: ['subscriptions', 'subscription', 'subscription-new', 'task'], needs: ['GET', '/api/v1/subscriptions'] },
  { path: '/addons', label: 'Packages & addons', routes: ['addons'], needs: ['GET', '/api/v1/addons'] },
  { path: '/agents', label: 'Install agents', routes: ['agents', 'agent-install'], needs: ['GET', '/api/v1/agent-installs'] },
  { path: '/run', label: 'Remote execution', routes: ['run'], needs: ['GET', '/api/v1/keys'] },
  { path: '/plans', label: 'Execution plans', routes: ['plans', 'plan'], needs: ['GET', '/api/v1/plans'] },
  { path: '/diagnosis', label: 'Diagnosis', routes: ['diagnosis', 'diagnosis-detail'], needs: ['GET', '/api/v1/diagnoses'] },
  { path: '/events', label: 'Events', routes: ['events'], needs: ['GET', '/api/v1/events'] },
  { path: '/audit', label: 'Audit', routes: ['audit'], needs: ['GET', '/api/v1/audit'] },
];

function Page({ route }: { route: Route }) {
  const id = route.params.id;
  switch (route.name) {
    case 'overview':
      return <Overview />;
    case 'inventory':
      return <Inventory />;
    case 'host':
      return <HostDetail id={id} />;
    case 'subscriptions':
      return <Subscriptions />;
    case 'subscription-new':
      return <SubscriptionNew />;
    case 'subscription':
      return <SubscriptionDetail id={id} />;
    case 'task':
      return <TaskView id={id} />;
    case 'addons':
      return <Addons />;
    case 'agents':
      return <AgentInstalls />;
    case 'agent-install':
      return <AgentInstallView id={id} />;
    case 'run':
      return <RunPage />;
    case 'plans':
      return <Plans />;
    case 'plan':
      return <PlanDetail id={id} />;
    case 'diagnosis':
      return <DiagnosisPage />;
    case 'diagnosis-detail':
      return <DiagnosisDetail id={id} />;
    case 'events':
      return <EventsPage />;
    case 'audit':
      return <AuditPage />;
    default:
      return (
        <div className="pad">
          <h1>Not found</h1>
          <p>
            No page at <code>{route.path}</code>. <a href={href('/overview')}>Go to the overview</a>.
          </p>
        </div>
      );
  }
}

export function Shell({ session, route }: { session: Session; route: Route }) {
  const nav = NAV.filter((n) => session.can(n.needs[0], n.needs[1]));
  return (
    <div className="shell">
      <header className="topbar">
        <a className="brand" href={href('/overview')}>
          <span className="logo" aria-hidden="true">◆</span> Drover
        </a>
        <div className="who" data-testid="whoami">
          <span className="who-name">{session.who.name}</span>
          <span className={`role role-${session.who.role}`} data-testid="role">
            {session.who.role}
          </span>
          {session.who.bk_biz_ids.length > 0 && <span className="muted small">businesses {session.who.bk_biz_ids.join(', ')}</span>}
          <button type="button" onClick={session.signOut} data-testid="sign-out">
            Sign out
          </button>
        </div>
      </header>
      <nav className="sidenav" aria-label="Main">
        <ul>
          {nav.map((n) => (
            <li key={n.path}>
              <a href={href(n.path)} className={n.routes.includes(route.name) ? 'active' : undefined} aria-current={n.routes.includes(route.name) ? 'page' : undefined}>
                {n.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main className="content" key={route.path}>
        <Page route={route} />
      </main>
    </div>
  );
}

export function App() {
  const route = useRoute();
  const [who, setWho] = useState<WhoAmI | null>(null);
  const [perms, setPerms] = useState<Permissions | null>(null);
  const [checking, setChecking] = useState<boolean>(() => !!getToken());
  const [loginError, setLoginError] = useState<unknown>(null);
  const [fatal, setFatal] = useState<unknown>(null);

  const signOut = useCallback(() => {
    clearToken();
    setWho(null);
    setPerms(null);
  }, []);

  useEffect(() => {
    setUnauthorizedHandler((problem) => {
      clearToken();
      setWho(null);
      setPerms(null);
      setLoginError(new Error(`${problem.title}${problem.detail ? `: ${problem.detail}` : ''} — sign in again.`));
    });
    return () => setUnauthorizedHandler(null);
  }, []);

  const establish = useCallback(async (token: string) => {
    const me = await whoami(token);
    const doc = await api.get<unknown>('/api/v1/openapi.json', { token, noAuthRedirect: true });
    setToken(token);
    setPerms(buildPermissions(doc as never, me.role, me.bk_biz_ids ?? []));
    setWho({ ...me, bk_biz_ids: me.bk_biz_ids ?? [] });
    setLoginError(null);
  }, []);

  useEffect(() => {
    const t = getToken();
    if (!t) return;
    establish(t)
      .catch((e) => {
        clearToken();
        setLoginError(e);
      })
      .finally(() => setChecking(false));
  }, [establish]);

  const session = useMemo<Session | null>(() => (who && perms ? { who, perms, can: perms.can, signOut } : null), [who, perms, signOut]);

  if (checking && !session) return <div className="pad muted">Checking the session…</div>;
  if (!session) return <Login error={loginError} onLogin={establish} />;
  return (
    <SessionContext.Provider value={session}>
      {fatal ? <ErrorBanner error={fatal} onClose={() => setFatal(null)} /> : null}
      <Shell session={session} route={route} />
    </SessionContext.Provider>
  );
}
