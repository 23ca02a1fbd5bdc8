// What the browser scripts share: Chromium through playwright-core, numbered steps with a screenshot after each
// (and one named FAILED-… when a step fails), and a check that the page logged no error and no CSP violation.
// Environment: DROVER_URL, DROVER_TOKEN, DROVER_SHOTS (screenshot directory), DROVER_CHROMIUM, DROVER_SPKI (base64 of
// the SHA-256 of the server certificate's public key: the one key Chromium accepts from a CA it does not know).
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

export const url = process.env.DROVER_URL ?? 'http://127.0.0.1:8080';
export const token = process.env.DROVER_TOKEN ?? '';
const shots = process.env.DROVER_SHOTS ?? 'target/console-screenshots';
mkdirSync(shots, { recursive: true });

export async function openConsole() {
  const browser = await chromium.launch({
    executablePath: process.env.DROVER_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
      ...(process.env.DROVER_SPKI ? [`--ignore-certificate-errors-spki-list=${process.env.DROVER_SPKI}`] : [])],
  });
  const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  page.setDefaultTimeout(20_000);
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) problems.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  let n = 0;
  const step = async (name, action) => {
    n += 1;
    const label = `${String(n).padStart(2, '0')}-${name}`;
    const started = Date.now();
    try {
      await action();
    } catch (e) {
      await page.screenshot({ path: `${shots}/FAILED-${label}.png`, fullPage: true }).catch(() => {});
      console.error(`step ${label} failed: ${e.message}`);
      await browser.close();
      process.exit(1);
    }
    await page.screenshot({ path: `${shots}/${label}.png`, fullPage: true });
    console.log(`ok ${label} (${Date.now() - started} ms)`);
  };
  const finish = async () => {
    await browser.close();
    if (problems.length) {
      console.error(`the page reported problems:\n  ${problems.join('\n  ')}`);
      process.exit(1);
    }
  };
  return { browser, page, step, finish };
}

export async function signIn(page) {
  await page.goto(`${url}/ui/`);
  await page.getByTestId('token-input').fill(token);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('whoami').waitFor();
}

export function check(condition, message) {
  if (!condition) throw new Error(message);
}
