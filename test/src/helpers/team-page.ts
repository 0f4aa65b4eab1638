/**
 * Helpers for the team page tests (`hub-team-page-*.test.ts`): a raw GET that keeps a path as
 * written, a hub on a real port, Chromium through playwright-core with the page's problems
 * collected, sign-in with a seat key, the host-props harness, and waits that never make the page
 * evaluate a string (its CSP forbids that).
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startHub, type HubHarness } from './hub.js';
import { repoRoot } from './paths.js';
import { until as poll } from './until.js';

export const CHROMIUM = process.env.KEEL_CHROMIUM ?? '/usr/bin/chromium';
export const PAGE_DIR = path.join(repoRoot, 'packages', 'hub-team-page');

/** A raw GET that sends the path exactly as written (fetch would normalise `..` away). */
export function rawGet(base: string, rawPath: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: rawPath, method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A hub with the plugin's defaults, listening on a real port (a browser needs one). */
export async function startServedHub(): Promise<{ hub: HubHarness; base: string }> {
  const hub = await startHub();
  return { hub, base: (await hub.kernel.listen()).url };
}

/** Skips the suite from its `before` hook, with one line instead of a failure per step, when there is no Chromium. */
export function skipWithoutChromium(suite: Mocha.Context): void {
  if (!existsSync(CHROMIUM)) {
    console.log(`      (skipped: no Chromium at ${CHROMIUM}; install the chromium package or set KEEL_CHROMIUM)`);
    suite.skip();
  }
}

export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', ...extraArgs] });
}

/** Collects what means a broken page into `problems`: uncaught errors, and console errors about CSP, module resolution, syntax or types. */
export function watchProblems(problems: string[], who: string, page: Page): void {
  page.on('pageerror', (err) => problems.push(`${who} page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy|Failed to resolve module|SyntaxError|TypeError/i.test(msg.text())) problems.push(`${who} console: ${msg.text()}`);
  });
}

/** The thread's message row showing `text`. */
export const message = (page: Page, text: string) => page.locator('[data-testid="message"]', { hasText: text });

/** The channel rail's row of `name`. */
export const channelRow = (page: Page, name: string) => page.locator(`[data-testid="channel-row"][data-channel="${name}"]`);

/** Opens the page at `url` and signs in with a seat key, waiting for the identity bar to show `seat`. */
export async function signIn(page: Page, url: string, key: string, seat: string): Promise<void> {
  await page.goto(url);
  await page.getByTestId('seat-key-input').fill(key);
  await page.getByTestId('sign-in-button').click();
  await page.getByTestId('identity-seat').filter({ hasText: seat }).waitFor();
}

/**
 * The host-props harness, in a new context: the served page without its boot script (same origin,
 * same CSP, same import map), where the test mounts `mountTeamPage` itself. `watch` sees the page
 * before it loads.
 */
export async function openHarness(browser: Browser, base: string, watch: (page: Page) => void): Promise<Page> {
  const ctx = await browser.newContext();
  await ctx.route(`${base}/hub/ui/harness.html`, async (route) => {
    const res = await route.fetch({ url: `${base}/hub/ui/` });
    const page = await res.text();
    const body = page.replace(/<script type="module" src="\.\/dist\/main\.js"><\/script>\n?/, '');
    if (body === page) throw new Error('the served index.html no longer boots from ./dist/main.js');
    await route.fulfill({ response: res, body });
  });
  const page = await ctx.newPage();
  watch(page);
  await page.goto(`${base}/hub/ui/harness.html`);
  expect(await page.getByTestId('team-page').count(), 'the harness boots nothing by itself').to.equal(0);
  return page;
}

/** Waits until an expression evaluated in the page is true (waitForFunction would eval a string, which the page's CSP forbids). */
export async function until(page: Page, expression: string, ms = 5000): Promise<void> {
  await waitForAsync(async () => (await page.evaluate(expression)) === true, ms, expression);
}

export async function waitForAsync(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  await poll(check, { deadline: ms, what, every: 100 });
}

export async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  await poll(check, { deadline: ms, what, every: 50 });
}
