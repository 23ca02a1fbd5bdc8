// The host list at scale: a server holding 100,000 hosts; the time from opening the inventory page to its first page
// of hosts on screen must stay within a second.
import { check, openConsole, signIn, url } from './session.mjs';

const { page, step, finish } = await openConsole();
let millis = 0;

await step('sign-in', () => signIn(page));

await step('first-page-of-hosts', async () => {
  const timings = [];
  for (let i = 0; i < 5; i++) {
    await page.goto(`${url}/ui/#/overview`);
    await page.getByTestId('whoami').waitFor();
    const started = Date.now();
    await page.goto(`${url}/ui/#/inventory`);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=host-row]').length >= 50);
    timings.push(Date.now() - started);
  }
  timings.sort((a, b) => a - b);
  millis = timings[2];
  const pager = await page.getByTestId('pager').textContent();
  check(/100[,.\s]?000/.test(pager ?? ''), `the pager shows the total of 100,000: ${pager}`);
  console.log(`first page of 100000 hosts: median ${millis} ms (of ${timings.join(', ')} ms)`);
  check(millis <= 1000, `the first page took ${millis} ms, more than 1 s`);
});

await step('search-within-100000', async () => {
  const started = Date.now();
  await page.getByTestId('host-search').fill('h99999');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=host-row]').length === 1);
  console.log(`search among 100000 hosts: ${Date.now() - started} ms (with a 250 ms debounce)`);
});

await finish();
