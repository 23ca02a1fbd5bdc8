// An operator's day in the console, against a server with the demo inventory, the example registry (bkmonitorbeat
// enabled, demo-exporter not) and three agents (host-1..3 on web-1, web-2, api-1).
import { check, openConsole, signIn, token, url } from './session.mjs';

const { page, step, finish } = await openConsole();

const SPEC = `name: beats on the web tier
run_immediately: false
scope:
  bk_biz_id: 2
  object_type: HOST
  node_type: TOPO
  nodes: [{bk_obj_id: module, bk_inst_id: 20}]
steps:
  - id: beat
    type: PLUGIN
    config: {plugin_name: bkmonitorbeat, config_templates: [{name: bkmonitorbeat_http.conf}]}
    params:
      context: {period: PERIOD, url: "http://{{ cmdb_instance.host.bk_host_innerip }}/health"}
`;

await step('sign-in', async () => {
  const answer = await page.goto(`${url}/ui/`);
  if (url.startsWith('https://')) {
    check(answer.headers()['strict-transport-security'] === 'max-age=31536000', 'the console is served with HSTS');
  }
  await page.getByTestId('token-input').fill('not-a-token');
  await page.getByTestId('login-submit').click();
  await page.getByTestId('error-banner').waitFor();
  await signIn(page);
  const stored = await page.evaluate(() => [Object.values(sessionStorage).join(' '), Object.values(localStorage).join(' '), location.href]);
  check(stored[0].includes(token), 'the token is kept in session storage');
  check(!stored[1].includes(token) && !stored[2].includes(token), 'the token is neither in local storage nor in the URL');
});

await step('overview-three-agents-online', async () => {
  await page.waitForFunction(() => document.querySelector('[data-testid=stat-online]')?.textContent?.includes('3'));
});

await step('inventory-hosts', async () => {
  await page.goto(`${url}/ui/#/inventory`);
  await page.getByTestId('host-row').first().waitFor();
  for (const host of ['web-1', 'web-2', 'api-1']) {
    await page.getByTestId('host-row').filter({ hasText: host }).waitFor();
  }
  await page.getByTestId('host-search').fill('web-');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=host-row]').length === 2);
});

await step('host-detail', async () => {
  await page.getByTestId('host-row').filter({ hasText: 'web-1' }).click();
  await page.getByText('host-1').first().waitFor();
  await page.getByTestId('agent-facts').getByTestId('agent-version-old').filter({ hasText: 'old — 0.2.0 available' }).waitFor();
});

await step('create-subscription', async () => {
  await page.goto(`${url}/ui/#/subscriptions/new`);
  await page.getByTestId('subscription-form').waitFor();
  await page.getByRole('button', { name: 'YAML / JSON' }).click();
  await page.getByTestId('subscription-yaml').fill(SPEC.replace('PERIOD', '30'));
  await page.getByRole('button', { name: 'Create' }).click();
  await page.getByTestId('preview-plan').waitFor();
});

await step('preview-plan', async () => {
  await page.getByTestId('preview-plan').click();
  await page.getByTestId('plan-table').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=plan-row]').length === 2);
  const rows = await page.getByTestId('plan-row').allTextContents();
  check(rows.every((r) => r.includes('INSTALL')), `every host is to INSTALL: ${rows.join(' | ')}`);
});

await step('run-and-watch-the-task', async () => {
  await page.getByTestId('run-subscription').click();
  // The server may have started a task on its own (an agent event re-plans the subscriptions on its host): then
  // the console answers 409 and links the running task.
  const ours = page.getByTestId('task-overall-status');
  const theirs = page.getByTestId('running-task-link');
  await ours.or(theirs).first().waitFor();
  if (await theirs.isVisible()) await theirs.click();
  await page.waitForSelector('[data-testid=task-overall-status][data-status=SUCCESS]', { timeout: 90_000 });
  await page.goBack();
  await page.getByRole('tab', { name: /Instances/ }).click();
  await page.waitForFunction(() => {
    const badges = [...document.querySelectorAll('[data-testid=instance-table] tbody tr td:nth-child(2) [data-status]')];
    return badges.length === 2 && badges.every((b) => b.getAttribute('data-status') === 'RUNNING');
  }, null, { timeout: 90_000 });
});

await step('edit-the-yaml-preview-save-and-run', async () => {
  for (let attempt = 1; ; attempt++) {
    await page.getByTestId('preview-plan').click();
    await page.getByText('Edit the subscription').click();
    await page.getByLabel('Subscription body to preview').fill(SPEC.replace('PERIOD', '45'));
    await page.getByRole('button', { name: 'Preview edited body' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=plan-row]').length === 2
      && [...document.querySelectorAll('[data-testid=plan-row]')].every((r) => r.textContent.includes('PUSH_CONFIG')));
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByTestId('save-subscription').click();
    const ours = page.getByTestId('task-overall-status');
    const theirs = page.getByTestId('running-task-link');
    await ours.or(theirs).first().waitFor();
    if (!(await theirs.isVisible())) break;
    check(attempt < 3, 'a task the server started itself was running at every attempt to save');
    await theirs.click(); // let the server's own task finish, then edit again
    await page.waitForSelector('[data-testid=task-overall-status][data-status=SUCCESS]', { timeout: 90_000 });
    await page.goBack();
  }
  await page.waitForSelector('[data-testid=task-overall-status][data-status=SUCCESS]', { timeout: 90_000 });
});

await step('enable-an-addon-through-its-form', async () => {
  await page.goto(`${url}/ui/#/addons`);
  await page.getByTestId('addon-row').filter({ hasText: 'demo-exporter' }).click();
  await page.getByTestId('addon-enable').click();
  await page.getByTestId('schema-form').waitFor();
  await page.getByTestId('addon-submit').click();
  await page.getByTestId('field-api_token').locator('.error, .field-error').first().waitFor();
  await page.getByTestId('field-api_token').locator('input').fill('a-long-enough-token');
  await page.getByTestId('field-scrape_interval').locator('input').fill('45');
  await page.getByTestId('addon-submit').click();
  await page.getByTestId('addon-notes').filter({ hasText: 'Scrape interval: 45s.' }).waitFor({ timeout: 60_000 });
  await page.getByTestId('addon-row').filter({ hasText: 'demo-exporter' }).locator('[data-status=enabled]').waitFor();
});

await step('run-test-ping', async () => {
  await page.goto(`${url}/ui/#/run`);
  await page.getByTestId('job-tgt').fill('*');
  await page.getByTestId('job-fun').fill('test.ping');
  await page.getByTestId('job-submit').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=job-row]').length === 3, null, { timeout: 30_000 });
  const returns = await page.getByTestId('job-return').allTextContents();
  check(returns.length === 3 && returns.every((r) => r.trim() === 'true'), `three returns of true: ${returns}`);
});

await step('diagnosis-on-its-graph', async () => {
  await page.goto(`${url}/ui/#/diagnosis`);
  const form = page.getByTestId('diagnosis-form');
  await form.locator('select').selectOption('host-overview');
  await form.getByLabel('Node name').fill('web-1');
  await form.getByRole('button', { name: 'Start diagnosis' }).click();
  await page.waitForSelector('[data-testid=diagnosis-phase][data-status=Succeeded]', { timeout: 60_000 });
  await page.getByTestId('graph').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=graph-node][data-state=succeeded]').length === 3);
  check((await page.getByTestId('operation-result').count()) >= 3, 'the three operations show their results');
});

await step('operation-set-graph', async () => {
  await page.goto(`${url}/ui/#/diagnosis`);
  await page.getByRole('tab', { name: 'OperationSets' }).click();
  await page.getByTestId('opset-table').getByText('host-overview').click();
  await page.getByTestId('path-list').waitFor();
  const operations = await page.locator('[data-testid=graph-node]').allTextContents();
  for (const op of ['host-facts', 'disk-usage', 'listening-ports']) {
    check(operations.some((t) => t.includes(op)), `the graph draws ${op}: ${operations.join(', ')}`);
  }
});

await step('agent-versions-flag-old-agents', async () => {
  await page.goto(`${url}/ui/#/agents`);
  await page.getByTestId('agent-row').filter({ hasText: 'host-3' }).waitFor();
  const version = (id) => page.getByTestId('agent-row').filter({ hasText: id }).getByTestId('agent-version');
  await version('host-1').getByTestId('agent-version-old').filter({ hasText: 'old — 0.2.0 available' }).waitFor();
  check((await version('host-2').getAttribute('data-old')) === 'true', 'a 0.2.0-SNAPSHOT agent is older than the 0.2.0 package');
  check((await version('host-3').getAttribute('data-old')) === 'false', 'an agent at the newest package is not flagged');
  check((await version('host-3').textContent()).includes('0.2.0'), 'the agent version column shows the version');
});

await step('install-refused-by-the-server', async () => {
  const form = page.getByTestId('install-form');
  await form.getByTestId('install-hosts').fill('bad_host');
  await form.getByTestId('install-auth-password').check();
  await form.getByTestId('install-password').fill('not-a-real-password');
  await form.getByTestId('install-submit').click();
  const banner = form.getByTestId('error-banner');
  await banner.filter({ hasText: 'hosts[0].address' }).waitFor();
  check(/\(4\d\d\)/.test(await banner.textContent()), `the server's problem is shown with its status: ${await banner.textContent()}`);
  const kept = await page.evaluate(() => [Object.values(sessionStorage).join(' '), Object.values(localStorage).join(' '), location.href].join(' '));
  check(!kept.includes('not-a-real-password'), 'the SSH password is in neither storage nor the URL');
});

await step('install-fails-on-a-closed-port', async () => {
  const form = page.getByTestId('install-form');
  await form.getByTestId('install-hosts').fill(`127.0.0.1:${process.env.DROVER_CLOSED_PORT}`);
  await form.getByTestId('install-masters').fill('127.0.0.1:4506');
  await form.getByTestId('install-submit').click();
  await page.waitForFunction(() => location.hash.startsWith('#/agent-installs/'));
  check(!page.url().includes('not-a-real-password'), 'the password is not in the URL');
  await page.waitForSelector('[data-testid=install-status][data-status=failed]', { timeout: 60_000 });
  const host = page.getByTestId('install-host').filter({ hasText: `127.0.0.1:${process.env.DROVER_CLOSED_PORT}` });
  check((await host.getAttribute('data-status')) === 'failed', 'the host failed');
  const reason = await host.getByTestId('install-host-error').textContent();
  check(/connect|refused/i.test(reason ?? ''), `the host's failure says why: ${reason}`);
  await page.getByTestId('install-step').filter({ hasText: 'connect' }).first().waitFor();
  await page.getByTestId('retry-failed').waitFor();
});

await step('retry-the-failed-host', async () => {
  await page.getByTestId('retry-auth-password').check();
  await page.getByTestId('retry-password').fill('not-a-real-password');
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/retry') && r.request().method() === 'POST'),
    page.getByTestId('retry-failed').click(),
  ]);
  check(answer.status() === 202, `the retry was accepted: ${answer.status()}`);
  await page.waitForSelector('[data-testid=install-status][data-status=failed]', { timeout: 60_000 });
  await page.getByTestId('install-host-error').first().waitFor();
  await page.goto(`${url}/ui/#/agents`);
  await page.getByTestId('install-task-row').first().locator('td[data-status=failed]').waitFor();
});

await step('a-viewer-sees-no-button-that-would-fail', async () => {
  await page.getByTestId('sign-out').click();
  await page.getByTestId('token-input').fill(process.env.DROVER_VIEWER_TOKEN ?? '');
  await page.getByTestId('login-submit').click();
  await page.getByTestId('role').filter({ hasText: /viewer/i }).waitFor();
  await page.goto(`${url}/ui/#/subscriptions`);
  await page.getByTestId('subscription-row').first().click();
  await page.getByTestId('preview-plan').waitFor();
  for (const id of ['run-subscription']) check((await page.getByTestId(id).count()) === 0, `a viewer has no ${id} button`);
  check((await page.getByRole('button', { name: /Retry|Revoke|Disable|Enable/ }).count()) === 0, 'a viewer has no retry, revoke, enable or disable');
  await page.goto(`${url}/ui/#/subscriptions`);
  check((await page.getByTestId('new-subscription').count()) === 0, 'a viewer cannot create subscriptions');
  await page.goto(`${url}/ui/#/addons`);
  await page.getByTestId('addon-row').filter({ hasText: 'demo-exporter' }).click();
  await page.getByTestId('addon-detail').waitFor();
  check((await page.getByTestId('addon-upgrade').count()) === 0, 'a viewer cannot upgrade addons');
  await page.goto(`${url}/ui/#/run`);
  await page.getByTestId('key-table').waitFor();
  check((await page.getByTestId('job-submit').count()) === 0, 'a viewer cannot run functions');
  check((await page.getByRole('button', { name: /Accept|Reject/ }).count()) === 0, 'a viewer cannot accept or reject keys');
  check((await page.getByRole('link', { name: 'Audit' }).count()) === 0, 'a viewer does not see the audit log in the navigation');
  await page.getByRole('link', { name: 'Install agents' }).click();
  await page.getByTestId('install-task-row').first().click();
  await page.getByTestId('install-host').first().waitFor();
  check((await page.getByTestId('retry-failed').count()) === 0, 'a viewer cannot retry an agent install');
  await page.goto(`${url}/ui/#/agents`);
  await page.getByTestId('install-tasks').waitFor();
  check((await page.getByTestId('install-form').count()) === 0, 'a viewer cannot start an agent install');
});

await finish();
