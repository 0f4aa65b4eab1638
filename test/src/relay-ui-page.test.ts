/**
 * The relay status page in a real Chromium against a real relay (the relay plugin alone on a
 * listening test kernel) over two upstream accounts on the scripted upstream, each with a usage
 * report, one of them exhausted (so the pool holds it): token entry (a wrong token refused with the
 * relay's sentence), the accounts with their windows and the hold, which account serves next and
 * how much is left, a refresh that releases the hold on evidence, real calls' adaptation,
 * failover, in-band stream error and retry in recent traffic, the logging form with a 422 shown
 * and a valid save, keyboard navigation, 1280×800 and phone width. Screenshots of every step go to
 * `KEEL_SCREENSHOTS` (default: a temp folder) for a person to look at.
 */
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, Page, Request } from 'playwright-core';
import { startRelay, type RelayUiHarness } from './helpers/relay-ui.js';
import { RelayUpstream, usageReport } from './helpers/relay-upstream.js';
import { launchChromium, skipWithoutChromium, until, waitForAsync, watchProblems } from './helpers/team-page.js';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SHOTS = process.env.KEEL_SCREENSHOTS ?? path.join(os.tmpdir(), 'keel-relay-status-page');
const WEEK = 604_800;
const FIVE_HOURS = 18_000;

describe('relay status page in Chromium', function () {
  this.timeout(120_000);
  let relay: RelayUiHarness;
  let base: string;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const missing: string[] = [];
  const requests: Request[] = [];

  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const card = (slug: string) => page.locator(`[data-testid="account"][data-slug="${slug}"]`);
  const api = async (method: string, url: string, payload?: unknown) => relay.kernel.inject({ method, url, token: relay.token, payload });

  before(async function () {
    skipWithoutChromium(this);
    mkdirSync(SHOTS, { recursive: true });
    console.log(`      screenshots: ${SHOTS}`);
    // The upstream knows both accounts before the relay starts (its warm start probes them at once).
    const upstream = new RelayUpstream();
    await upstream.start();
    upstream.account('key-ana', { usage: usageReport([{ seconds: WEEK, used: 30, resetIn: 3 * 86_400 }, { seconds: FIVE_HOURS, used: 12, resetIn: 3600 }], { email: 'ana@example.com' }) });
    upstream.account('key-bo', { usage: usageReport([{ seconds: WEEK, used: 100, resetIn: 7200 }, { seconds: FIVE_HOURS, used: 40, resetIn: 1800 }], { email: 'bo@example.com' }) });
    relay = await startRelay({
      upstream,
      accounts: (url) => [
        { slug: 'ana', email: 'ana@example.com', baseUrl: url, apiKey: 'key-ana', usagePath: '/usage' },
        { slug: 'bo', email: 'bo@example.com', baseUrl: url, apiKey: 'key-bo', usagePath: '/usage' },
      ],
      // A transient hold long enough to be seen on a loaded machine.
      config: { hosted: { balance: 'balanced', transientHoldSeconds: 120, retryAttempts: 2, retryBackoffSeconds: [0.1] } },
    });
    base = (await relay.kernel.listen()).url;
    // A refresh probes both accounts now (the warm start does it too, in the background): bo's exhausted report holds it.
    const refreshed = await api('POST', '/v1/relay/accounts/refresh');
    expect(refreshed.json<{ accounts: Array<{ slug: string; limited: boolean }> }>().accounts.map((a) => [a.slug, a.limited])).to.deep.equal([['ana', false], ['bo', true]]);
    browser = await launchChromium();
    const ctx = await browser.newContext({ viewport: DESKTOP });
    page = await ctx.newPage();
    watchProblems(problems, 'status page', page);
    page.on('response', (res) => {
      if (res.status() === 404) missing.push(res.url());
    });
    page.on('request', (req) => requests.push(req));
  });

  after(async () => {
    await browser?.close();
    await relay?.stop();
  });

  it('asks for the token once; a wrong one is refused with the relay\'s sentence', async () => {
    await page.goto(`${base}/relay/ui/`);
    const input = page.getByLabel('Token', { exact: true });
    await input.waitFor();
    expect(await page.evaluate('document.activeElement?.id')).to.equal('relay-token');
    await shot('1-token');
    await input.fill('not-the-relay-token');
    await input.press('Enter');
    const error = page.getByTestId('token-error');
    await error.waitFor({ state: 'visible' });
    expect(await error.textContent()).to.match(/\w+/);
    expect(await page.evaluate('sessionStorage.length'), 'a refused token is not kept').to.equal(0);
    await shot('2-token-refused');
  });

  it('with the token: which account serves next, how much is left, every window, the hold', async () => {
    await page.getByLabel('Token', { exact: true }).fill(relay.token);
    await page.getByTestId('token-submit').click();
    await page.getByTestId('accounts-panel').waitFor();
    await card('ana').getByTestId('usage-window').first().waitFor();
    await card('bo').getByTestId('account-hold').waitFor();

    const ana = card('ana');
    expect(await ana.locator('[data-window="weekly"] [data-testid="usage-window-numbers"]').textContent()).to.equal('30% used · 70% left');
    expect(await ana.locator('[data-window="5h"] [data-testid="usage-window-numbers"]').textContent()).to.equal('12% used · 88% left');
    expect(await ana.locator('[data-window="weekly"]').textContent()).to.match(/resets in 3d/);
    expect(await ana.locator('meter').count(), 'one meter per window').to.equal(2);
    expect(await ana.getByTestId('serves-next').count()).to.equal(1);
    expect(await card('bo').getByTestId('serves-next').count()).to.equal(0);
    expect(await page.getByTestId('serves-next-summary').textContent()).to.equal('ana');
    expect(await page.getByTestId('quota-left').textContent()).to.match(/^70% of weekly, resets in 3d/);
    expect(await page.getByTestId('held-count').textContent()).to.equal('1 of 2');
    expect(await page.getByTestId('balance').textContent()).to.equal('balanced');
    expect(Number(await page.getByTestId('requests-total').textContent())).to.be.at.least(0);

    const hold = card('bo').getByTestId('account-hold');
    expect(await hold.getAttribute('data-kind')).to.equal('quota');
    expect(await hold.textContent()).to.match(/On hold: quota/);
    expect(await hold.getByTestId('hold-remaining').textContent()).to.match(/^(1h \d+m|\d+m( \d+s)?) left$/);
    expect(await hold.getByTestId('hold-last-error').textContent()).to.match(/^Last error: .*usage limit/i);
    expect(await card('bo').locator('[data-window="weekly"] [data-testid="usage-window-numbers"]').textContent()).to.equal('100% used · 0% left');

    // The token lives in this tab's sessionStorage only, and goes only to the relay's /v1 routes.
    expect(await page.evaluate("sessionStorage.getItem('keel.relay.token')")).to.equal(relay.token);
    expect(await page.evaluate('localStorage.length')).to.equal(0);
    expect(await page.context().cookies()).to.deep.equal([]);
    expect(page.url()).not.to.include(relay.token);
    const withToken = requests.filter((r) => r.headers().authorization === `Bearer ${relay.token}`).map((r) => new URL(r.url()).pathname);
    expect(withToken.length).to.be.greaterThan(0);
    for (const p of withToken) expect(p, 'the token goes to /v1 only').to.match(/^\/v1\/(relay|subscription)\//);
    expect(requests.filter((r) => r.url().startsWith(`${base}/relay/ui/`) && r.headers().authorization !== undefined), 'no token on page files').to.deep.equal([]);
    await shot('3-accounts');
  });

  it('Refresh accounts asks every account again: a fresh report with capacity releases the hold, shown in recent traffic', async () => {
    relay.upstream.usage('key-bo', usageReport([{ seconds: WEEK, used: 20, resetIn: 7200 }, { seconds: FIVE_HOURS, used: 5, resetIn: 1800 }], { email: 'bo@example.com' }));
    const before = requests.length;
    await page.getByTestId('refresh-accounts').click();
    await waitForAsync(async () => /Accounts refreshed/.test((await page.getByTestId('action-message').textContent()) ?? ''), 30_000, 'the refresh to finish');
    expect(requests.slice(before).some((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/v1/relay/accounts/refresh')).to.equal(true);
    await waitForAsync(async () => (await card('bo').getByTestId('account-hold').count()) === 0, 30_000, 'the hold of bo to be released');
    expect(await card('bo').locator('[data-window="weekly"] [data-testid="usage-window-numbers"]').textContent()).to.equal('20% used · 80% left');
    // bo now has the lowest weekly use: it serves next.
    expect(await page.getByTestId('serves-next-summary').textContent()).to.equal('bo');
    const released = page.locator('[data-testid="traffic-record"][data-phase="accounts_refresh"]', { hasText: 'bo released' });
    await released.first().waitFor();
    await shot('4-refreshed');
  });

  it('recent traffic shows a real call\'s adaptation (ignored parameters) and its failover from → to; the failed account is held', async () => {
    // bo (20% weekly) is picked first and fails with a 500: the pool fails over to ana and holds bo (transient).
    relay.upstream.script('key-bo', [{ status: 500, error: { message: 'upstream exploded', type: 'server_error', code: null } }]);
    const res = await relay.kernel.inject({
      method: 'POST', url: '/v1/chat/completions', token: relay.token,
      payload: { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2, max_tokens: 50 },
    });
    expect(res.statusCode, res.body).to.equal(200);
    expect(relay.upstream.generations('key-bo')).to.have.length(1);
    expect(relay.upstream.generations('key-ana')).to.have.length(1);
    await page.getByTestId('reload').click();
    const adaptation = page.locator('[data-testid="traffic-record"][data-phase="compatibility_adaptation"]');
    await adaptation.first().waitFor();
    expect(await adaptation.first().textContent()).to.include('Ignored parameters: temperature, max_tokens');
    const failover = page.locator('[data-testid="traffic-record"][data-phase="account_failover"]');
    await failover.first().waitFor();
    expect(await failover.first().textContent()).to.include('Failover bo → ana');
    const hold = card('bo').getByTestId('account-hold');
    await hold.waitFor();
    expect(await hold.getAttribute('data-kind')).to.equal('transient');
    expect(await hold.getByTestId('hold-last-error').textContent()).to.include('500');
    // The countdown of a 2 min hold runs between reads.
    const shown = await hold.getByTestId('hold-remaining').textContent();
    expect(shown).to.match(/^(\dm( \d+s)?|\d+s) left$/);
    await waitForAsync(async () => (await hold.getByTestId('hold-remaining').textContent()) !== shown, 15_000, 'the hold countdown to tick');
    expect(await page.getByTestId('serves-next-summary').textContent()).to.equal('ana');
    expect(Number(await page.getByTestId('requests-total').textContent()), 'the call counts').to.be.at.least(1);
    await shot('5-traffic');
  });

  it('recent traffic shows a stream that failed after its first byte and a retried pass', async () => {
    // ana serves (bo is held): its stream fails in-band after two deltas.
    relay.upstream.script('key-ana', [{ streamError: { message: 'model overloaded', type: 'server_error', code: 'overloaded' }, before: 2 }, { status: 503, error: { message: 'try again soon', type: 'server_error', code: null } }, { text: 'fine now' }]);
    const streamed = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${relay.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(streamed.status).to.equal(200);
    expect(await streamed.text()).to.include('model overloaded').and.not.include('[DONE]');
    // Then ana answers 503 and bo 500: the whole pass fails and is retried; ana answers the retry.
    const retried = await relay.kernel.inject({ method: 'POST', url: '/v1/chat/completions', token: relay.token, payload: { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] } });
    expect(retried.statusCode, retried.body).to.equal(200);
    expect(retried.body).to.include('fine now');
    await page.getByTestId('reload').click();
    const streamError = page.locator('[data-testid="traffic-record"][data-phase="upstream_stream_error"]');
    await streamError.first().waitFor();
    expect(await streamError.first().textContent()).to.include('Stream error on gpt-test').and.include('model overloaded');
    const retry = page.locator('[data-testid="traffic-record"][data-phase="retry_backoff"]');
    await retry.first().waitFor();
    expect(await retry.first().textContent()).to.match(/Retry 1\/2 after 0\.1 s \(status 50[03]\)/);
    await shot('5b-stream-error-and-retry');
  });

  it('the logging form shows the relay\'s 422 verbatim, keeps the policy, then saves a valid one', async () => {
    await page.getByTestId('logging-summary').waitFor();
    expect(await page.getByTestId('logging-retention').textContent()).to.equal('7 days');
    expect(await page.getByLabel('Largest file (MiB)').inputValue()).to.equal('50');
    const answers: number[] = [];
    page.on('response', (res) => {
      if (res.request().method() === 'PUT' && new URL(res.url()).pathname === '/v1/relay/logging') answers.push(res.status());
    });

    await page.getByLabel('Largest file (MiB)').fill('5000');
    await page.getByTestId('logging-save').click();
    const error = page.getByTestId('logging-form-error');
    await error.waitFor({ state: 'visible' });
    expect(answers).to.deep.equal([422]);
    const refusal = await relay.kernel.inject({ method: 'PUT', url: '/v1/relay/logging', token: relay.token, payload: { retention_days: 7, max_total_mb: 1024, max_file_mb: 5000 } });
    expect(refusal.statusCode).to.equal(422);
    expect(await error.textContent()).to.equal(`Not saved: ${refusal.json<{ error: { message: string } }>().error.message}`);
    expect((await api('GET', '/v1/relay/logging')).json<{ policy_source: string }>().policy_source, 'nothing saved').to.equal('config');
    await shot('6-logging-422');

    await page.getByLabel('Keep logs for (days, 0 = no age limit)').fill('3');
    await page.getByLabel('Largest file (MiB)').fill('20');
    await page.getByTestId('logging-save').click();
    await waitForAsync(async () => /^Saved: 3 days/.test((await page.getByTestId('logging-form-message').textContent()) ?? ''), 30_000, 'the policy to be saved');
    expect(await error.isHidden()).to.equal(true);
    expect(await page.getByTestId('logging-retention').textContent()).to.equal('3 days');
    expect((await api('GET', '/v1/relay/logging')).json<{ policy: unknown }>().policy).to.deep.equal({ retention_days: 3, max_total_mb: 1024, max_file_mb: 20 });
    await shot('7-logging-saved');
  });

  it('keyboard: Tab reaches every control in order, Enter and Space work them; inputs and meters have names', async () => {
    await page.locator('body').click({ position: { x: 2, y: 2 } });
    await page.evaluate('document.activeElement?.blur()');
    const order: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      order.push(await page.evaluate<string>("document.activeElement?.dataset.testid ?? document.activeElement?.tagName ?? ''"));
    }
    const expected = ['refresh-accounts', 'reload', 'forget-token', 'policy-retention_days', 'policy-max_total_mb', 'policy-max_file_mb', 'logging-save'];
    const positions = expected.map((id) => order.indexOf(id));
    expect(positions, `focus order ${order.join(' → ')}`).to.not.include(-1);
    expect([...positions].sort((a, b) => a - b)).to.deep.equal(positions);

    // Enter on the focused Refresh button works it.
    const before = requests.length;
    await page.getByTestId('refresh-accounts').focus();
    await page.keyboard.press('Enter');
    await waitForAsync(async () => requests.slice(before).some((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/v1/relay/accounts/refresh'), 30_000, 'Enter to refresh');
    // Enter in a policy field submits the form.
    await page.getByLabel('Total size budget (MiB)').fill('512');
    await page.getByLabel('Total size budget (MiB)').press('Enter');
    await waitForAsync(async () => /512 MiB total/.test((await page.getByTestId('logging-form-message').textContent()) ?? ''), 30_000, 'Enter to save');

    // Names for assistive technology: every meter is labelled by its window, every input by its label.
    for (const meter of await page.locator('meter').all()) {
      const labelledBy = await meter.getAttribute('aria-labelledby');
      expect(labelledBy).to.be.a('string');
      expect(await page.locator(`[id="${labelledBy}"]`).count()).to.equal(1);
    }
    expect(await page.evaluate<string[]>("[...document.querySelectorAll('input')].filter((i) => i.labels.length !== 1).map((i) => i.id)"), 'inputs without exactly one label').to.deep.equal([]);
    expect(await page.locator('h1').textContent()).to.equal('Relay status');
    expect(await page.locator('section[aria-labelledby] h2').allTextContents()).to.deep.equal(['Accounts', 'Recent traffic', 'Traffic logs']);
  });

  it('fits 1280×800 (accounts and logging in the first screen) and a phone without sideways scrolling', async () => {
    await page.setViewportSize(DESKTOP);
    await page.evaluate('window.scrollTo(0, 0)');
    const accounts = await page.getByTestId('accounts-panel').boundingBox();
    const logging = await page.getByTestId('logging-panel').boundingBox();
    expect(accounts!.y).to.be.below(DESKTOP.height / 2);
    expect(logging!.y, 'logging beside the accounts').to.be.below(DESKTOP.height / 2);
    expect(logging!.x).to.be.greaterThan(accounts!.x + accounts!.width - 1);
    const refresh = await page.getByTestId('refresh-accounts').boundingBox();
    expect(refresh!.y + refresh!.height).to.be.below(DESKTOP.height);
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).to.equal(true);
    await shot('8-desktop');

    await page.setViewportSize(PHONE);
    await until(page, 'document.documentElement.scrollWidth <= window.innerWidth').catch(() => undefined);
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow, 'no sideways scrolling at phone width').to.be.at.most(0);
    const phoneAccounts = await page.getByTestId('accounts-panel').boundingBox();
    const phoneLogging = await page.getByTestId('logging-panel').boundingBox();
    expect(phoneLogging!.y, 'one column: logging below the accounts').to.be.greaterThan(phoneAccounts!.y + phoneAccounts!.height - 1);
    for (const slug of ['ana', 'bo']) {
      const box = await card(slug).boundingBox();
      expect(box!.x + box!.width, slug).to.be.at.most(PHONE.width);
    }
    await shot('9-phone');
    await page.setViewportSize(DESKTOP);
  });

  it('Forget token clears it and asks again', async () => {
    await page.getByTestId('forget-token').click();
    await page.getByLabel('Token', { exact: true }).waitFor();
    expect(await page.evaluate('sessionStorage.length')).to.equal(0);
    expect(await page.getByTestId('accounts-panel').count()).to.equal(0);
  });

  it('loaded without a CSP violation, a script error or a missing file', () => {
    expect(problems).to.deep.equal([]);
    expect(missing).to.deep.equal([]);
  });
});
