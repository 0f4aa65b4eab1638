/**
 * The team page (`@keel/hub-team-page`) as a person uses it: served by the hub plugin under
 * `/hub/ui/`, driven in a real Chromium through playwright-core against a real kernel on a real
 * port, with a second seat acting over HTTP and from a second browser context.
 */
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import {
  assistantQuestion, attachmentsOf, dmChannelName, highlightSegments, hubBaseFor, isInlineRaster, reconnectDelay, threadOrder, verdictOf, workIdsOf,
} from '@keel/hub-team-page';
import { startHub, type HubHarness } from './helpers/hub.js';
import { repoRoot } from './helpers/paths.js';

const CHROMIUM = process.env.KEEL_CHROMIUM ?? '/usr/bin/chromium';
const PAGE_DIR = path.join(repoRoot, 'packages', 'hub-team-page');
const LIVE_MS = 4000; // below the 5 s poll, so an arrival this fast came over the socket

/** A raw GET that sends the path exactly as written (fetch would normalise `..` away). */
function rawGet(base: string, rawPath: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
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

/** Selectors of a CSS file's rules, at any nesting depth (comments and declarations dropped). */
function cssRules(text: string): Array<{ selector: string; declarations: string[] }> {
  const rules: Array<{ selector: string; declarations: string[] }> = [];
  const clean = text.replace(/\/\*[\s\S]*?\*\//g, '');
  const stack: string[] = [];
  let buffer = '';
  for (const ch of clean) {
    if (ch === '{') {
      stack.push(buffer.trim());
      buffer = '';
    } else if (ch === '}') {
      const selector = stack.pop() ?? '';
      const declarations = buffer.split(';').map((d) => d.trim()).filter(Boolean);
      if (!selector.startsWith('@')) rules.push({ selector, declarations });
      buffer = '';
    } else if (ch === ';' && stack.length === 0) {
      buffer = ''; // a top-level at-rule such as @import
    } else {
      buffer += ch;
    }
  }
  return rules;
}

describe('team page helpers (plain modules, run in Node)', () => {
  it('cuts highlights by code points, so astral characters before a match do not shift it', () => {
    // '🦓' is one code point and two UTF-16 units; the hub's offsets count code points.
    const marked = (snippet: string, hl: Array<[number, number]>) => highlightSegments(snippet, hl).filter((s) => s.highlighted).map((s) => s.text);
    expect(marked('🦓 zebra 🦓🦓 zebra', [[2, 5], [11, 5]])).to.deep.equal(['zebra', 'zebra']);
    expect(marked('é𝒳 ok', [[1, 1]])).to.deep.equal(['𝒳']);
    expect(highlightSegments('abc', [[1, 99], [-5, 2], [0, 0]]).map((s) => [s.text, s.highlighted])).to.deep.equal([['a', false], ['bc', true]]);
    expect(highlightSegments('abc', null).map((s) => s.text).join('')).to.equal('abc');
  });

  it('orders a thread: replies under their parent, orphans as roots', () => {
    const rows = threadOrder([
      { id: 'c', seq: 3, reply_to: 'a' },
      { id: 'a', seq: 1, reply_to: null },
      { id: 'b', seq: 2, reply_to: null },
      { id: 'd', seq: 4, reply_to: 'c' },
      { id: 'e', seq: 5, reply_to: 'gone' },
    ]);
    expect(rows.map((r) => `${r.message.id}${r.depth}${r.orphan ? '!' : ''}`)).to.deep.equal(['a0', 'c1', 'd2', 'b0', 'e0!']);
  });

  it('finds the hub base from the page path and backs off the socket up to 15 s', () => {
    expect(hubBaseFor('/hub/ui/', null)).to.equal('/hub');
    expect(hubBaseFor('/proxy/hub/ui/index.html', undefined)).to.equal('/proxy/hub');
    expect(hubBaseFor('/ui/', '')).to.equal('');
    expect(hubBaseFor('/hub/ui/', 'https://hub.example')).to.equal('https://hub.example');
    expect([1, 2, 5, 15, 40].map(reconnectDelay)).to.deep.equal([1000, 2000, 5000, 15000, 15000]);
  });

  it('finds work ids in item_ref and text, never in dates or glued words', () => {
    expect(workIdsOf({ title: 'About hub-0042', body: 'see team-page-0007, hub-0042 and 2026-0801; nothub-0042x', data: { item_ref: 'kernel-0001' } }))
      .to.deep.equal(['kernel-0001', 'hub-0042', 'team-page-0007']);
    expect(workIdsOf({ title: '', body: 'hub-001 HUB-0001 hub-0001x 7hub-0001', data: { item_ref: 'Not An Id' } })).to.deep.equal([]);
  });

  it('reads the /assistant command, DM names, attachment refs and ledger verdicts', () => {
    expect(assistantQuestion('/assistant what next?')).to.equal('what next?');
    expect(assistantQuestion('  /assistant')).to.equal('');
    expect(assistantQuestion('/assistants are here')).to.equal(null);
    expect(assistantQuestion('hello /assistant x')).to.equal(null);
    expect(dmChannelName('zed', 'amy')).to.equal('dm:amy--zed');
    const refs = attachmentsOf({ data: { attachments: [{ id: 'a', filename: 'x.png', content_type: 'image/png', size: 3 }, { nope: 1 }] }, attachments: [{ id: 'a' }, { id: 'b', filename: 'y.svg', content_type: 'image/svg+xml', size: 9 }] });
    expect(refs.map((r) => r.id)).to.deep.equal(['a', 'b']);
    expect(['image/png', 'IMAGE/JPEG; q=1', 'image/svg+xml', 'text/html', ''].map(isInlineRaster)).to.deep.equal([true, true, false, false, false]);
    const base = { computed_head: 'h', hashed: 1, legacy: 0, redacted: 0 };
    expect(verdictOf({ ...base, ok: true, broken_at: null, head_mismatch: false })).to.equal('ok');
    expect(verdictOf({ ...base, ok: false, broken_at: 3, head_mismatch: false })).to.equal('broken');
    expect(verdictOf({ ...base, ok: false, broken_at: null, head_mismatch: true })).to.equal('head-mismatch');
  });
});

describe('team page styles', () => {
  const read = (name: string) => readFileSync(path.join(PAGE_DIR, 'styles', name), 'utf8');

  it('components.css scopes every selector to a class and names no bare element', () => {
    const rules = cssRules(read('components.css'));
    expect(rules.length).to.be.greaterThan(20);
    const offenders: string[] = [];
    for (const { selector } of rules) {
      for (const complex of selector.split(',').map((s) => s.trim())) {
        // Compound selectors, split at combinators; each must start with a class, attribute or pseudo-class.
        const compounds = complex.split(/\s*[>+~]\s*|\s+/).filter(Boolean);
        const first = compounds[0] ?? '';
        if (!first.startsWith('.')) offenders.push(complex);
        else if (compounds.some((c) => /^[a-z*]/i.test(c))) offenders.push(complex);
      }
    }
    expect(offenders, 'selectors not scoped to a class').to.deep.equal([]);
  });

  it('theme.css declares custom properties only, including the documented set', () => {
    const text = read('theme.css');
    const rules = cssRules(text);
    const declarations = rules.flatMap((r) => r.declarations);
    expect(declarations.length).to.be.greaterThan(10);
    expect(declarations.filter((d) => !d.startsWith('--')), 'non-custom-property declarations').to.deep.equal([]);
    for (const name of ['--bg-primary', '--bg-secondary', '--bg-tertiary', '--ui-surface-1', '--ui-border-1', '--text-primary', '--text-secondary', '--text-muted', '--accent', '--accent-subtle', '--font-sm', '--font-md']) {
      expect(text, name).to.include(`${name}:`);
    }
  });

  it('full.css is the theme plus the components, and components read the theme', () => {
    const full = read('full.css');
    expect(full).to.match(/@import url\("\.\/theme\.css"\)/);
    expect(full).to.match(/@import url\("\.\/components\.css"\)/);
    const components = read('components.css');
    for (const name of ['--bg-primary', '--ui-border-1', '--text-muted', '--accent', '--accent-subtle']) expect(components).to.include(`var(${name})`);
  });
});

describe('team page serving (GET /hub/ui…)', () => {
  let hub: HubHarness;
  let base: string;

  before(async () => {
    hub = await startHub();
    base = (await hub.kernel.listen()).url;
  });
  after(() => hub?.stop());

  it('redirects /hub/ui to /hub/ui/ and serves index.html with its import map, nosniff and a CSP', async () => {
    const redirect = await rawGet(base, '/hub/ui');
    expect(redirect.status).to.equal(302);
    expect(new URL(redirect.headers.location!, `${base}/hub/ui`).pathname).to.equal('/hub/ui/');
    const page = await rawGet(base, '/hub/ui/');
    expect(page.status).to.equal(200);
    expect(page.headers['content-type']).to.match(/^text\/html/);
    expect(page.headers['x-content-type-options']).to.equal('nosniff');
    expect(page.headers['cache-control']).to.equal('no-cache');
    expect(page.headers['content-security-policy']).to.match(/script-src 'self' 'sha256-/);
    // Attachment images are fetched with the seat key and shown from blob: URLs; nothing else is widened.
    expect(page.headers['content-security-policy']).to.include("img-src 'self' data: blob:");
    expect(page.headers['content-security-policy']).to.include("default-src 'none'");
    expect(page.body).to.include('"@keel/hub-client": "./client/index.js"');
    expect(page.body).to.include('./dist/main.js');
  });

  it('serves the page modules, the styles and the hub client modules with their types', async () => {
    for (const [url, type] of [
      ['/hub/ui/dist/main.js', /^text\/javascript/],
      ['/hub/ui/dist/team-page.js', /^text\/javascript/],
      ['/hub/ui/styles/full.css', /^text\/css/],
      ['/hub/ui/styles/components.css', /^text\/css/],
      ['/hub/ui/styles/theme.css', /^text\/css/],
      ['/hub/ui/client/index.js', /^text\/javascript/],
      ['/hub/ui/client/hub-client.js', /^text\/javascript/],
    ] as const) {
      const res = await rawGet(base, url);
      expect(res.status, url).to.equal(200);
      expect(res.headers['content-type'], url).to.match(type);
      expect(res.headers['x-content-type-options'], url).to.equal('nosniff');
      expect(res.headers['cache-control'], url).to.match(/max-age=\d+/);
    }
    const first = await rawGet(base, '/hub/ui/dist/main.js');
    const again = await rawGet(base, '/hub/ui/dist/main.js', { 'if-none-match': String(first.headers.etag) });
    expect(again.status).to.equal(304);
  });

  it('serves nothing else of either package and never leaves their folders', async () => {
    for (const url of [
      '/hub/ui/package.json', '/hub/ui/src/team-page.ts', '/hub/ui/tsconfig.json', '/hub/ui/dist/', '/hub/ui/dist/index.d.ts',
      '/hub/ui/client/../package.json', '/hub/ui/client/%2e%2e/package.json', '/hub/ui/dist/..%2F..%2F..%2Fpackage.json',
      '/hub/ui/styles/%2e%2e%2f%2e%2e%2ftsconfig.json', '/hub/ui/dist/missing.js', '/hub/ui/client/index.d.ts', '/hub/ui/dist/a%00.js',
      '/hub/ui/styles/..%5c..%5cpackage.json',
    ]) {
      const res = await rawGet(base, url);
      expect([400, 404], `${url} → ${res.status}`).to.include(res.status);
      expect(res.body, url).not.to.include('"name"');
    }
  });
});

describe('team page in a browser', function () {
  this.timeout(60_000);
  let hub: HubHarness;
  let base: string;
  let browser: Browser;
  let annCtx: BrowserContext;
  let benCtx: BrowserContext;
  let ann: Page;
  let ben: Page;
  let annKey: string;
  let benKey: string;
  let annMessageId = '';
  const problems: string[] = [];
  const framesIn: string[] = [];
  const framesOut: string[] = [];

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`      (skipped: no Chromium at ${CHROMIUM}; install the chromium package or set KEEL_CHROMIUM)`);
      this.skip();
    }
    hub = await startHub();
    base = (await hub.kernel.listen()).url;
    // One clear failure instead of a timeout per step when the page is not served at all.
    const probe = await rawGet(base, '/hub/ui/');
    if (probe.status !== 200) throw new Error(`GET /hub/ui/ answered ${probe.status}: the hub plugin does not serve the team page (is uiRoutes() mounted?)`);
    annKey = await hub.seat('ann');
    benKey = await hub.seat('ben');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    annCtx = await browser.newContext();
    benCtx = await browser.newContext();
    ann = await annCtx.newPage();
    ben = await benCtx.newPage();
    for (const [who, page] of [['ann', ann], ['ben', ben]] as const) {
      page.on('pageerror', (err) => problems.push(`${who} page error: ${err.message}`));
      page.on('console', (msg) => {
        if (msg.type() === 'error' && /Content Security Policy|Failed to resolve module|SyntaxError|TypeError/i.test(msg.text())) problems.push(`${who} console: ${msg.text()}`);
      });
    }
    ann.on('websocket', (ws) => {
      ws.on('framereceived', (f) => framesIn.push(String(f.payload)));
      ws.on('framesent', (f) => framesOut.push(String(f.payload)));
    });
  });

  after(async () => {
    await browser?.close();
    await hub?.stop();
  });

  const message = (page: Page, text: string) => page.locator('[data-testid="message"]', { hasText: text });

  async function signIn(page: Page, key: string, seat: string): Promise<void> {
    await page.goto(`${base}/hub/ui`);
    await page.getByTestId('seat-key-input').fill(key);
    await page.getByTestId('sign-in-button').click();
    await page.getByTestId('identity-seat').filter({ hasText: seat }).waitFor();
  }

  it('shows a wrong seat key’s refusal verbatim and keeps the key out of storage', async () => {
    await ann.goto(`${base}/hub/ui`);
    expect(new URL(ann.url()).pathname).to.equal('/hub/ui/');
    await ann.getByTestId('seat-key-input').fill('agora_not_a_key');
    await ann.getByTestId('sign-in-button').click();
    await ann.getByTestId('refusal').waitFor();
    expect(await ann.getByTestId('refusal').textContent()).to.equal('invalid api key');
    expect(await ann.getByTestId('refusal').getAttribute('data-status')).to.equal('401');
    expect(await ann.getByTestId('protocol-badge').count(), 'no mismatch badge against agora/0.4').to.equal(0);
  });

  it('signs in with a seat key and shows the seat, channels and commons', async () => {
    await signIn(ann, annKey, 'ann');
    expect(await ann.getByTestId('operator-badge').count()).to.equal(0);
    // Evaluated in the page (a string: the test project has no DOM typings).
    const storage = await ann.evaluate<string>('JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie, url: location.href })');
    expect(storage).not.to.include(annKey);
    await ann.locator('[data-testid="channel-row"][data-channel="commons"]').click();
    await ann.getByTestId('thread-channel').filter({ hasText: 'commons' }).waitFor();
    await message(ann, 'ann joined').waitFor();
  });

  it('posts a message from the composer and shows it in the thread', async () => {
    await ann.getByTestId('composer-title').fill('Crossing plan');
    await ann.getByTestId('composer-body').fill('🦓 the zebra crossing is ready');
    await ann.getByTestId('composer-status').selectOption('open');
    await ann.getByTestId('composer-submit').click();
    const mine = message(ann, 'the zebra crossing is ready');
    await mine.waitFor();
    expect(await mine.getByTestId('message-title').textContent()).to.equal('Crossing plan');
    expect(await mine.getByTestId('message-sender').textContent()).to.equal('ann');
    expect(await mine.getByTestId('message-status').textContent()).to.equal('open');
    annMessageId = (await mine.getAttribute('data-id'))!;
    expect(annMessageId).to.be.a('string').and.not.equal('');
    expect(await ann.getByTestId('composer-body').inputValue()).to.equal('');
  });

  it('subscribes on the live socket and shows another seat’s post as it arrives', async () => {
    await ann.locator('[data-testid="live-status"][data-state="open"]').waitFor({ timeout: 10_000 });
    await waitFor(() => framesOut.some((f) => isSubscribe(f, 'commons')), 5000, 'a subscribe frame naming commons');
    const posted = await hub.call('POST', '/channels/commons/messages', benKey, { body: 'ben here, live', reply_to: annMessageId, status: 'reply' });
    expect(posted.status).to.equal(200);
    await message(ann, 'ben here, live').waitFor({ timeout: LIVE_MS });
    expect(framesIn.some((f) => isEnvelope(f, 'commons', posted.body.seq))).to.equal(true);
    // A reply is threaded under the message it answers.
    const reply = message(ann, 'ben here, live');
    expect(Number(await reply.getAttribute('data-depth'))).to.equal(1);
    expect(await reply.getByTestId('message-reply-to').getAttribute('data-reply-to')).to.equal(annMessageId);
  });

  it('rates another seat’s message and shows the viewer’s own mark', async () => {
    const reply = message(ann, 'ben here, live');
    await reply.getByTestId('rate-up').click();
    await reply.locator('[data-testid="rate-up"][aria-pressed="true"]').waitFor();
    expect(await reply.getByTestId('rate-up').textContent()).to.match(/1$/);
  });

  it('finds a word with search and highlights it (code-point offsets)', async () => {
    await ann.getByTestId('tab-search').click();
    await ann.getByTestId('search-q').fill('zebra');
    await ann.getByTestId('search-submit').click();
    const hit = ann.getByTestId('search-hit').first();
    await hit.waitFor();
    expect(await hit.getAttribute('data-channel')).to.equal('commons');
    const marks = await hit.getByTestId('search-highlight').allTextContents();
    expect(marks.map((m) => m.toLowerCase())).to.include('zebra');
    await ann.getByTestId('tab-thread').click();
  });

  it('shows another seat’s refusal verbatim when it tries to retract ann’s message', async () => {
    await signIn(ben, benKey, 'ben');
    await ben.locator('[data-testid="channel-row"][data-channel="commons"]').click();
    const target = ben.locator(`[data-testid="message"][data-id="${annMessageId}"]`);
    await target.waitFor();
    await target.getByTestId('retract-button').click();
    await ben.getByTestId('refusal').waitFor();
    const shown = await ben.getByTestId('refusal').textContent();
    expect(shown).to.match(/^only the author \(or an operator\) can retract a message/);
    // Exactly the hub's sentence: the same refusal over HTTP.
    const direct = await hub.call('POST', `/channels/commons/messages/${annMessageId}/retract`, benKey, {});
    expect(direct.status).to.equal(403);
    expect(shown).to.equal(direct.body.detail);
    expect(await ben.getByTestId('refusal').getAttribute('data-status')).to.equal('403');
    expect(await target.getAttribute('data-retracted')).to.equal('false');
  });

  it('asks from the composer; the other seat answers the ask from the thread', async () => {
    await ann.getByTestId('composer-body').fill('Two checks before we open the crossing');
    await ann.getByTestId('composer-asks').fill('check the lights\ncheck the paint');
    await ann.getByTestId('composer-status').selectOption('open');
    await ann.getByTestId('composer-submit').click();
    const question = message(ann, 'Two checks before we open the crossing');
    await question.getByTestId('ask').nth(1).waitFor();
    expect(await question.locator('[data-testid="ask"][data-pending="true"]').count()).to.equal(2);
    const lightsId = (await question.getByTestId('ask').filter({ hasText: 'check the lights' }).getAttribute('data-ask-id'))!;

    const onBen = message(ben, 'Two checks before we open the crossing');
    await onBen.waitFor({ timeout: 8000 });
    await onBen.getByTestId('ask').filter({ hasText: 'check the lights' }).getByTestId('answer-ask').click();
    expect(await ben.getByTestId('composer-reply-to').inputValue()).to.equal(await question.getAttribute('data-id'));
    expect(await ben.getByTestId('composer-answers').inputValue()).to.equal(lightsId);
    expect(await ben.getByTestId('composer-status').inputValue()).to.equal('reply');
    await ben.getByTestId('composer-body').fill('lights are green');
    await ben.getByTestId('composer-submit').click();
    const answer = message(ben, 'lights are green');
    await answer.waitFor();
    expect(await answer.getByTestId('message-answers').getAttribute('data-answers')).to.equal(lightsId);
    expect(await answer.getByTestId('message-answers').textContent()).to.include('check the lights');
    // ann sees the answer arrive and the ask settle; the other ask stays pending.
    await message(ann, 'lights are green').waitFor({ timeout: LIVE_MS });
    await question.locator(`[data-testid="ask"][data-ask-id="${lightsId}"][data-pending="false"]`).waitFor({ timeout: LIVE_MS });
    expect(await question.locator('[data-testid="ask"][data-pending="true"]').count()).to.equal(1);
  });

  it('lists the inbox and acknowledges a row only when asked', async () => {
    await ben.getByTestId('tab-inbox').click();
    const row = ben.locator('[data-testid="inbox-row"]', { hasText: 'ann' }).first();
    await row.waitFor();
    const seq = Number(await row.getAttribute('data-seq'));
    const before = await ben.getByTestId('inbox-row').count();
    await row.getByTestId('inbox-ack').click();
    await waitForAsync(async () => (await ben.locator(`[data-testid="inbox-row"][data-channel="commons"][data-seq="${seq}"]`).count()) === 0, 5000, 'the acked row to leave the inbox');
    expect(await ben.getByTestId('inbox-row').count()).to.be.below(before);
    await ben.getByTestId('tab-owed').click();
    await ben.getByTestId('owed-to_answer').waitFor();
    await ben.getByTestId('tab-thread').click();
  });

  it('writes a file, then shows the hub’s 409 verbatim when another seat changed it meanwhile', async () => {
    await ann.getByTestId('tab-files').click();
    await ann.getByTestId('vfs-new').click();
    await ann.getByTestId('vfs-path').fill('notes/plan.md');
    await ann.getByTestId('vfs-editor').fill('# Plan\nfirst draft');
    await ann.getByTestId('vfs-save').click();
    await ann.locator('[data-testid="vfs-version"][data-version="1"]').waitFor();
    await ann.locator('[data-testid="vfs-entry"][data-path="notes/plan.md"]').waitFor();

    const theirs = await hub.call('PUT', '/channels/commons/fs/notes/plan.md', benKey, { content: '# Plan\nben was here', expect_version: 1 });
    expect(theirs.status).to.equal(200);
    await ann.getByTestId('vfs-editor').fill('# Plan\nsecond draft');
    await ann.getByTestId('vfs-save').click();
    await ann.getByTestId('refusal').waitFor();
    const shown = await ann.getByTestId('refusal').textContent();
    const direct = await hub.call('PUT', '/channels/commons/fs/notes/plan.md', annKey, { content: 'x', expect_version: 1 });
    expect(direct.status).to.equal(409);
    expect(shown).to.equal(direct.body.detail);
    expect(await ann.getByTestId('refusal').getAttribute('data-status')).to.equal('409');
    expect(await ann.getByTestId('vfs-editor').inputValue(), 'the editor keeps the text').to.equal('# Plan\nsecond draft');

    // Re-open: the editor reads the hub's head.
    await ann.locator('[data-testid="vfs-entry"][data-path="notes/plan.md"]').getByTestId('vfs-open').click();
    await ann.locator('[data-testid="vfs-version"][data-version="2"]').waitFor();
    expect(await ann.getByTestId('vfs-editor').inputValue()).to.equal('# Plan\nben was here');
    await ann.getByTestId('tab-thread').click();
  });

  it('retracts its own message and shows it dimmed with the tombstone', async () => {
    const mine = ann.locator(`[data-testid="message"][data-id="${annMessageId}"]`);
    await mine.getByTestId('retract-button').click();
    await ann.locator(`[data-testid="message"][data-id="${annMessageId}"][data-retracted="true"]`).waitFor();
    expect(await mine.getByTestId('message-body').textContent()).to.equal('[retracted by ann]');
    const opacity = Number(await mine.evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { opacity: string } }).getComputedStyle(el).opacity));
    expect(opacity).to.be.below(1);
    expect(await mine.getByTestId('retract-button').count()).to.equal(0);
    // ben's page learns of the tombstone too (socket or poll).
    await ben.locator(`[data-testid="message"][data-id="${annMessageId}"][data-retracted="true"]`).waitFor({ timeout: LIVE_MS });
  });

  it('warns about another protocol and a paused hub, and keeps working', async () => {
    const ctx = await browser.newContext();
    try {
      const page = await ctx.newPage();
      await page.route('**/hub/healthz', (r) => r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ ok: true, db: 'ok', version: '9.9.9', protocol: 'agora/9.9', paused: true }) }));
      await signIn(page, benKey, 'ben');
      expect(await page.getByTestId('protocol-badge').textContent()).to.equal('protocol agora/9.9 ≠ agora/0.4');
      await page.getByTestId('paused-badge').waitFor();
      await message(page, 'lights are green').waitFor();
      expect(await page.getByTestId('composer-submit').isDisabled()).to.equal(true);
    } finally {
      await ctx.close();
    }
  });

  it('ran without page errors or blocked resources', () => {
    expect(problems).to.deep.equal([]);
  });
});

describe('team page panels and host props in a browser', function () {
  this.timeout(60_000);
  let hub: HubHarness;
  let base: string;
  let browser: Browser;
  let caraCtx: BrowserContext;
  let danCtx: BrowserContext;
  let cara: Page;
  let dan: Page;
  let caraKey: string;
  let danKey: string;
  let chipMessageId = '';
  const problems: string[] = [];
  // A 1×1 PNG, an SVG that would run script if it were ever inlined, and a text file.
  const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
  const TXT = Buffer.from('plain notes\n');

  const watch = (who: string, page: Page) => {
    page.on('pageerror', (err) => problems.push(`${who} page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content Security Policy|Failed to resolve module|SyntaxError|TypeError/i.test(msg.text())) problems.push(`${who} console: ${msg.text()}`);
    });
  };

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`      (skipped: no Chromium at ${CHROMIUM}; install the chromium package or set KEEL_CHROMIUM)`);
      this.skip();
    }
    hub = await startHub();
    base = (await hub.kernel.listen()).url;
    caraKey = await hub.seat('cara');
    danKey = await hub.seat('dan');
    // The harness page below is fulfilled by the test (no network address), so Chromium's local
    // network access checks would block its socket to 127.0.0.1; the served page is not affected.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-features=LocalNetworkAccessChecks'] });
    caraCtx = await browser.newContext();
    danCtx = await browser.newContext();
    cara = await caraCtx.newPage();
    dan = await danCtx.newPage();
    watch('cara', cara);
    watch('dan', dan);
  });

  after(async () => {
    await browser?.close();
    await hub?.stop();
  });

  const message = (page: Page, text: string) => page.locator('[data-testid="message"]', { hasText: text });
  const channelRow = (page: Page, name: string) => page.locator(`[data-testid="channel-row"][data-channel="${name}"]`);

  async function signIn(page: Page, key: string, seat: string): Promise<void> {
    await page.goto(`${base}/hub/ui/`);
    await page.getByTestId('seat-key-input').fill(key);
    await page.getByTestId('sign-in-button').click();
    await page.getByTestId('identity-seat').filter({ hasText: seat }).waitFor();
  }

  it('the default page offers none of the host controls: no Speak, Summarise, Board, /assistant, and chips do not navigate', async () => {
    const posted = await hub.call('POST', '/channels/commons/messages', danKey, { title: 'Board work', body: 'please look at hub-0042 before Friday', data: { item_ref: 'kernel-0007' } });
    expect(posted.status).to.equal(200);
    chipMessageId = posted.body.id;
    await signIn(cara, caraKey, 'cara');
    const row = message(cara, 'please look at hub-0042');
    await row.waitFor();
    expect(await row.getByTestId('work-chip').evaluateAll((els) => els.map((el) => `${(el as unknown as { tagName: string }).tagName}:${(el as unknown as { textContent: string }).textContent}`)))
      .to.deep.equal(['SPAN:kernel-0007', 'SPAN:hub-0042']);
    for (const id of ['speak-button', 'advisor-summarise', 'board-open', 'advisor-panel']) {
      expect(await cara.locator(`[data-testid="${id}"]:visible`).count(), id).to.equal(0);
    }
    expect(await cara.getByTestId('composer').getAttribute('data-assistant')).to.equal('false');
    expect(await cara.getByTestId('composer-body').getAttribute('placeholder')).not.to.include('/assistant');
  });

  it('starts a direct message from the people list; its first message creates the channel', async () => {
    const person = cara.locator('[data-testid="person-row"][data-agent="dan"]');
    await person.waitFor();
    await person.getByTestId('dm-start').click();
    await cara.getByTestId('thread-channel').filter({ hasText: '@dan' }).waitFor();
    expect(await cara.getByTestId('thread-placeholder').textContent()).to.include('first message creates');
    expect(await cara.getByTestId('composer-submit').textContent()).to.equal('Send');
    expect(await cara.getByTestId('composer-file').isVisible(), 'no uploads before the channel exists').to.equal(false);
    await cara.getByTestId('composer-body').fill('hello dan, privately');
    await cara.getByTestId('composer-submit').click();
    const dm = dmChannelName('cara', 'dan');
    await cara.locator(`[data-testid="channel-row"][data-channel="${dm}"][aria-current="true"]`).waitFor();
    await message(cara, 'hello dan, privately').waitFor();
    expect(await cara.getByTestId('channel-bar').getAttribute('data-channel')).to.equal(dm);
    const seen = await hub.call('GET', `/channels/${encodeURIComponent(dm)}/messages`, danKey);
    expect(seen.status).to.equal(200);
    expect(seen.body.map((m: { body: string }) => m.body)).to.include('hello dan, privately');
    // Starting it again opens the existing channel.
    await cara.locator('[data-testid="channel-row"][data-channel="commons"]').click();
    await cara.locator('[data-testid="person-row"][data-agent="dan"]').getByTestId('dm-start').click();
    await message(cara, 'hello dan, privately').waitFor();
  });

  it('creates a public channel; a second create shows the hub’s 409 verbatim; another seat joins it', async () => {
    await cara.getByTestId('channel-create-name').fill('garden');
    await cara.getByTestId('channel-create-private').uncheck();
    await cara.getByTestId('channel-create-submit').click();
    await cara.getByTestId('thread-channel').filter({ hasText: 'garden' }).waitFor();
    await channelRow(cara, 'garden').waitFor();
    expect(await cara.getByTestId('channel-detail').textContent()).to.equal('public');
    await message(cara, 'channel created by cara').waitFor();

    await cara.getByTestId('channel-create-name').fill('garden');
    await cara.getByTestId('channel-create-submit').click();
    await cara.getByTestId('refusal').waitFor();
    const direct = await hub.call('POST', '/channels', caraKey, { name: 'garden', private: false });
    expect(direct.status).to.equal(409);
    expect(await cara.getByTestId('refusal').textContent()).to.equal(direct.body.detail);
    expect(await cara.getByTestId('channel-create-name').inputValue(), 'the name stays for a retry').to.equal('garden');
    await cara.getByTestId('channel-create-name').fill('');

    await signIn(dan, danKey, 'dan');
    const row = channelRow(dan, 'garden');
    await row.waitFor();
    expect(await row.getAttribute('data-member')).to.equal('false');
    await row.click();
    await dan.getByTestId('thread-placeholder').waitFor();
    expect(await dan.getByTestId('composer-submit').isDisabled()).to.equal(true);
    await dan.getByTestId('join-channel').click();
    await dan.locator('[data-testid="channel-row"][data-channel="garden"][data-member="true"]').waitFor();
    await message(dan, 'dan joined').waitFor();
    expect(await dan.getByTestId('composer-submit').isDisabled()).to.equal(false);
    expect(await dan.getByTestId('join-channel').count()).to.equal(0);
  });

  it('opens the channel info drawer: facts, members with a Message control, and the room charter link', async () => {
    await message(cara, 'dan joined').waitFor({ timeout: 8000 });
    await cara.getByTestId('channel-info-toggle').click();
    const drawer = cara.getByTestId('channel-info');
    await drawer.locator('[data-testid="channel-member"][data-agent="dan"]').waitFor();
    expect(await cara.getByTestId('channel-info-toggle').getAttribute('aria-expanded')).to.equal('true');
    expect(await drawer.locator('[data-fact="visibility"]').textContent()).to.equal('public');
    expect(await drawer.locator('[data-fact="created-by"]').textContent()).to.match(/^cara/);
    expect(await drawer.locator('[data-testid="channel-member"][data-agent="cara"]').getAttribute('data-role')).to.equal('owner');
    expect(await drawer.locator('[data-testid="channel-member"][data-agent="cara"]').getByTestId('member-dm').count(), 'no DM with yourself').to.equal(0);
    expect(await drawer.locator('[data-testid="channel-member"][data-agent="dan"]').getByTestId('member-dm').count()).to.equal(1);
    await drawer.getByTestId('channel-charter-link').click();
    await cara.locator('[data-testid="vfs-editor"][data-path="channel/charter.md"]').waitFor();
    expect(await cara.getByTestId('vfs-path').inputValue()).to.equal('channel/charter.md');
    expect(await cara.getByTestId('vfs-version').getAttribute('data-version')).to.equal('1');
    await cara.getByTestId('tab-thread').click();
    await cara.getByTestId('channel-info-close').click();
    expect(await drawer.isVisible()).to.equal(false);
  });

  it('uploads files from the composer and posts them; a raster image shows inline, SVG never does, others download', async () => {
    const uploads: string[] = [];
    cara.on('request', (r) => {
      if (r.method() === 'POST' && /\/channels\/garden\/attachments\?/.test(r.url())) uploads.push(r.url());
    });
    await cara.getByTestId('composer-file').setInputFiles([
      { name: 'dot.png', mimeType: 'image/png', buffer: PNG },
      { name: 'evil.svg', mimeType: 'image/svg+xml', buffer: SVG },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: TXT },
    ]);
    expect(await cara.getByTestId('composer-file-chip').allTextContents()).to.deep.equal(['dot.png', 'evil.svg', 'notes.txt']);
    await cara.getByTestId('composer-body').fill('three files attached');
    await cara.getByTestId('composer-submit').click();
    const posted = message(cara, 'three files attached');
    await posted.getByTestId('attachment').nth(2).waitFor();
    expect(uploads.length).to.equal(3);
    expect(await cara.getByTestId('composer-file-chip').count(), 'the composer forgets sent files').to.equal(0);

    const id = (await posted.getAttribute('data-id'))!;
    const history = await hub.call('GET', '/channels/garden/messages', danKey);
    const row = history.body.find((m: { id: string }) => m.id === id);
    expect(row.data.attachments.map((a: { filename: string }) => a.filename)).to.deep.equal(['dot.png', 'evil.svg', 'notes.txt']);

    const png = posted.locator('[data-testid="attachment"]', { hasText: 'dot.png' });
    await png.locator('[data-testid="attachment-image"][data-state="shown"]').waitFor();
    expect(await png.getByTestId('attachment-image').getAttribute('src')).to.match(/^blob:/);
    await waitForAsync(async () => (await png.getByTestId('attachment-image').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)) === 1, 5000, 'the PNG to decode');
    const pngRef = row.data.attachments[0];
    expect(await png.getByTestId('attachment-link').getAttribute('href')).to.equal(`${base}/hub/channels/garden/attachments/${pngRef.id}`);

    const svg = posted.locator('[data-testid="attachment"]', { hasText: 'evil.svg' });
    expect(await svg.getAttribute('data-inline')).to.equal('false');
    expect(await svg.getByTestId('attachment-image').count()).to.equal(0);
    expect(await posted.locator('img').count(), 'exactly one inline image').to.equal(1);

    const txt = posted.locator('[data-testid="attachment"]', { hasText: 'notes.txt' });
    const [download] = await Promise.all([cara.waitForEvent('download'), txt.getByTestId('attachment-link').click()]);
    expect(download.suggestedFilename()).to.equal('notes.txt');
    const saved = await download.path();
    expect(readFileSync(saved).toString('utf8')).to.equal('plain notes\n');
  });

  it('verifies the ledger in the page: ok, broken at a seq, head mismatch', async () => {
    await cara.getByTestId('tab-ledger').click();
    const verdict = cara.getByTestId('ledger-verdict');
    await cara.locator('[data-testid="ledger-verdict"][data-verdict="ok"]').waitFor();
    expect(await verdict.textContent()).to.match(/^Verified by this page/);
    const turns = await cara.getByTestId('ledger-turn').count();
    expect(turns).to.be.greaterThan(2);

    const tamper = (change: (ledger: { head: string; turns: Array<{ seq: number; body: string }> }) => void) => async (route: Parameters<Parameters<Page['route']>[1]>[0]) => {
      const res = await route.fetch();
      const ledger = await res.json();
      change(ledger);
      await route.fulfill({ response: res, json: ledger });
    };
    await cara.route('**/hub/channels/garden/ledger', tamper((l) => { l.turns[1]!.body = 'rewritten history'; }));
    await cara.getByTestId('ledger-refresh').click();
    await cara.locator('[data-testid="ledger-verdict"][data-verdict="broken"]').waitFor();
    expect(await verdict.getAttribute('data-broken-at')).to.equal('2');
    expect(await verdict.textContent()).to.match(/^Broken at seq 2/);
    expect(await cara.locator('[data-testid="ledger-turn"][data-broken="true"]').getAttribute('data-seq')).to.equal('2');
    await cara.unroute('**/hub/channels/garden/ledger');

    await cara.route('**/hub/channels/garden/ledger', tamper((l) => { l.head = 'f'.repeat(64); }));
    await cara.getByTestId('ledger-refresh').click();
    await cara.locator('[data-testid="ledger-verdict"][data-verdict="head-mismatch"]').waitFor();
    expect(await verdict.textContent()).to.match(/^Head mismatch/);
    await cara.unroute('**/hub/channels/garden/ledger');
    await cara.getByTestId('tab-thread').click();
  });

  it('retracts a whole thread from its root; a trail with another author is refused verbatim and nothing is retracted', async () => {
    await cara.getByTestId('composer-body').fill('shared root');
    await cara.getByTestId('composer-submit').click();
    const shared = message(cara, 'shared root');
    await shared.waitFor();
    const sharedId = (await shared.getAttribute('data-id'))!;
    expect(await shared.getByTestId('retract-thread-button').count(), 'no thread control without replies').to.equal(0);
    expect((await hub.call('POST', '/channels/garden/messages', danKey, { body: 'dan replies', reply_to: sharedId, status: 'reply' })).status).to.equal(200);
    await message(cara, 'dan replies').waitFor({ timeout: 8000 });
    await shared.getByTestId('retract-thread-button').click();
    expect(await shared.getByTestId('retract-thread-confirm').textContent()).to.equal('Retract 2 messages');
    await shared.getByTestId('retract-thread-confirm').click();
    await cara.getByTestId('refusal').waitFor();
    const direct = await hub.call('POST', `/channels/garden/messages/${sharedId}/retract_thread`, caraKey, {});
    expect(direct.status).to.equal(403);
    expect(await cara.getByTestId('refusal').textContent()).to.equal(direct.body.detail);
    expect(await shared.getAttribute('data-retracted')).to.equal('false');

    await cara.getByTestId('composer-body').fill('my own root');
    await cara.getByTestId('composer-submit').click();
    const own = message(cara, 'my own root');
    await own.waitFor();
    const ownId = (await own.getAttribute('data-id'))!;
    await own.getByTestId('reply-button').click();
    expect(await cara.getByTestId('composer-reply-to').inputValue()).to.equal(ownId);
    await cara.getByTestId('composer-body').fill('my own reply');
    await cara.getByTestId('composer-submit').click();
    await message(cara, 'my own reply').waitFor();
    await own.getByTestId('retract-thread-button').click();
    await own.getByTestId('retract-thread-cancel').click();
    await own.getByTestId('retract-thread-button').click();
    await own.getByTestId('retract-thread-confirm').click();
    await cara.locator(`[data-testid="message"][data-id="${ownId}"][data-retracted="true"]`).waitFor();
    expect(await cara.getByTestId('thread-notice').textContent()).to.match(/^Retracted 2 messages/);
    const rows = (await hub.call('GET', '/channels/garden/messages', danKey)).body as Array<{ id: string; reply_to: string | null; retracted: boolean }>;
    expect(rows.filter((m) => m.id === ownId || m.reply_to === ownId).map((m) => m.retracted)).to.deep.equal([true, true]);
  });

  // -------------------------------------------------------------------------------------------
  // Host props, through a test-only harness: the served page without its boot script (same
  // origin, same CSP, same import map), where the test mounts `mountTeamPage` itself.

  let host: Page;
  const requests: Array<{ method: string; url: string; client: string | undefined }> = [];

  async function openHarness(): Promise<Page> {
    const ctx = await browser.newContext();
    await ctx.route(`${base}/hub/ui/harness.html`, async (route) => {
      const res = await route.fetch({ url: `${base}/hub/ui/` });
      const page = await res.text();
      const body = page.replace(/<script type="module" src="\.\/dist\/main\.js"><\/script>\n?/, '');
      if (body === page) throw new Error('the served index.html no longer boots from ./dist/main.js');
      await route.fulfill({ response: res, body });
    });
    const page = await ctx.newPage();
    watch('host', page);
    await page.goto(`${base}/hub/ui/harness.html`);
    expect(await page.getByTestId('team-page').count(), 'the harness boots nothing by itself').to.equal(0);
    return page;
  }

  it('mounts with a host hub client that already holds a key (no sign-in form) and a mount-time focus', async () => {
    host = await openHarness();
    host.on('request', (r) => requests.push({ method: r.method(), url: r.url(), client: r.headers()['x-hub-client'] }));
    await host.evaluate(`(async () => {
      const { mountTeamPage } = await import('/hub/ui/dist/index.js');
      const { HubClient } = await import('/hub/ui/client/index.js');
      window.__calls = { advisor: [], speak: [], aborted: [], board: [], focus: [] };
      window.__focus = { channel: 'garden' };
      window.__teamPage = mountTeamPage(document.getElementById('team-page'), {
        hub: new HubClient({ base_url: '/hub', bearer_token: ${JSON.stringify(caraKey)}, client_name: 'harness-host/1' }),
        advisor: (request, signal) => {
          window.__calls.advisor.push({ ...request, messages: request.messages.map((m) => ({ ...m })), frozen: Object.isFrozen(request.messages) && Object.isFrozen(request.messages[0]), signal: signal instanceof AbortSignal });
          return Promise.resolve('advice (' + request.purpose + '): ' + request.question + ' [' + request.messages.length + ' messages]');
        },
        on_speak_message: (m, signal) => new Promise((resolve) => {
          window.__calls.speak.push({ ...m, keys: Object.keys(m).sort().join(',') });
          signal.addEventListener('abort', () => { window.__calls.aborted.push(m.id); resolve(); });
        }),
        on_open_board: (...args) => { window.__calls.board.push(args); },
        focus: window.__focus,
        on_focus_consumed: (focus, outcome) => { window.__calls.focus.push({ focus, outcome, same: focus === window.__focus }); },
      });
    })()`);
    await host.getByTestId('identity-seat').filter({ hasText: 'cara' }).waitFor();
    expect(await host.getByTestId('sign-in').isVisible()).to.equal(false);
    await until(host, 'window.__calls.focus.length === 1');
    expect(await host.evaluate('window.__calls.focus[0]')).to.deep.equal({ focus: { channel: 'garden' }, outcome: { channel: true, message: false }, same: true });
    await host.getByTestId('thread-channel').filter({ hasText: 'garden' }).waitFor();
    await host.locator('[data-testid="live-status"][data-state="open"]').waitFor({ timeout: 10_000 });
    const hubCalls = requests.filter((r) => r.url.startsWith(`${base}/hub/`) && !r.url.startsWith(`${base}/hub/ui/`));
    expect(hubCalls.length).to.be.greaterThan(2);
    expect(hubCalls.every((r) => r.client === 'harness-host/1'), 'every hub call went through the host client').to.equal(true);
  });

  it('advisor: Summarise sends the visible thread; /assistant asks a question; neither posts to the hub', async () => {
    await message(host, 'three files attached').waitFor();
    const before = (await hub.call('GET', '/channels/garden/messages', caraKey)).body.length;
    const posts = () => requests.filter((r) => r.method === 'POST' && /\/messages$/.test(r.url)).length;
    const postsBefore = posts();

    await host.getByTestId('advisor-summarise').click();
    await host.locator('[data-testid="advisor-answer"][data-state="done"]').waitFor();
    const summary = await host.evaluate<{ question: string; channel: string; purpose: string; messages: Array<{ body: string; id: string }>; frozen: boolean; signal: boolean }>('window.__calls.advisor[0]');
    expect(summary.purpose).to.equal('summary');
    expect(summary.channel).to.equal('garden');
    expect(summary.frozen && summary.signal).to.equal(true);
    const bodies = summary.messages.map((m) => m.body);
    expect(bodies).to.include('three files attached');
    expect(bodies).to.include('shared root');
    expect(bodies.some((b) => b.startsWith('[retracted')), 'tombstones are not sent').to.equal(false);
    expect(Object.keys(summary.messages[0]!).sort()).to.deep.equal(['body', 'created_at', 'id', 'kind', 'reply_to', 'sender', 'seq', 'status', 'title']);
    expect(await host.getByTestId('advisor-answer-text').textContent()).to.equal(`advice (summary): Summarise this thread. [${summary.messages.length} messages]`);

    await host.getByTestId('composer-body').fill('/assistant what should we plant?');
    await host.getByTestId('composer-submit').click();
    await host.locator('[data-testid="advisor-answer"][data-purpose="assistant"][data-state="done"]').waitFor();
    expect(await host.getByTestId('advisor-question').textContent()).to.equal('what should we plant?');
    expect(await host.getByTestId('advisor-answer-text').textContent()).to.match(/^advice \(assistant\): what should we plant\?/);
    expect(await host.getByTestId('composer-body').inputValue()).to.equal('');
    expect(await host.evaluate('window.__calls.advisor.length')).to.equal(2);

    await host.getByTestId('composer-body').fill('/assistant');
    await host.getByTestId('composer-submit').click();
    expect(await host.getByTestId('composer-note').textContent()).to.equal('Type a question after /assistant.');
    expect(await host.evaluate('window.__calls.advisor.length')).to.equal(2);
    await host.getByTestId('composer-body').fill('');

    expect(posts(), 'no post request').to.equal(postsBefore);
    expect((await hub.call('GET', '/channels/garden/messages', caraKey)).body.length).to.equal(before);
    await host.getByTestId('advisor-dismiss').click();
    expect(await host.getByTestId('advisor-panel').isVisible()).to.equal(false);
  });

  it('speech: a Speak control per message; a second press, another message or another channel aborts', async () => {
    const first = message(host, 'three files attached');
    const second = message(host, 'shared root');
    const secondId = (await second.getAttribute('data-id'))!;
    await first.getByTestId('speak-button').click();
    await until(host, 'window.__calls.speak.length === 1');
    const spoken = await host.evaluate<Record<string, unknown>>('window.__calls.speak[0]');
    const firstId = (await first.getAttribute('data-id'))!;
    expect(spoken).to.include({ id: firstId, channel: 'garden', sender: 'cara', title: '', body: 'three files attached', keys: 'body,channel,id,sender,seq,title' });
    expect(spoken.seq).to.equal(Number(await first.getAttribute('data-seq')));
    await first.locator('[data-testid="speak-button"][aria-pressed="true"]').waitFor();
    expect(await first.getByTestId('speak-button').textContent()).to.equal('Stop');

    await first.getByTestId('speak-button').click(); // second press aborts
    await until(host, `window.__calls.aborted.length === 1`);
    await first.locator('[data-testid="speak-button"][aria-pressed="false"]').waitFor();

    await first.getByTestId('speak-button').click();
    await second.getByTestId('speak-button').click(); // another message aborts the first
    await until(host, 'window.__calls.aborted.length === 2 && window.__calls.speak.length === 3');
    expect(await host.evaluate('window.__calls.aborted')).to.deep.equal([firstId, firstId]);

    await host.locator('[data-testid="channel-row"][data-channel="commons"]').click(); // switching channel aborts
    await until(host, 'window.__calls.aborted.length === 3');
    expect(await host.evaluate('window.__calls.aborted[2]')).to.equal(secondId);
    expect(await host.locator('[data-testid="speak-button"][aria-pressed="true"]').count()).to.equal(0);
  });

  it('board: work-id chips (text and item_ref) and the Board control call on_open_board', async () => {
    const row = host.locator(`[data-testid="message"][data-id="${chipMessageId}"]`);
    await row.waitFor();
    const chips = row.getByTestId('work-chip');
    expect(await chips.evaluateAll((els) => els.map((el) => (el as unknown as { tagName: string }).tagName))).to.deep.equal(['BUTTON', 'BUTTON']);
    await row.locator('[data-testid="work-chip"][data-work-id="hub-0042"]').click();
    await row.locator('[data-testid="work-chip"][data-work-id="kernel-0007"]').click();
    await host.getByTestId('board-open').click();
    expect(await host.evaluate('window.__calls.board')).to.deep.equal([['hub-0042'], ['kernel-0007'], []]);
  });

  it('focus: a host update selects the channel, highlights the message and reports it consumed', async () => {
    await host.locator('[data-testid="channel-row"][data-channel="garden"]').click();
    await host.getByTestId('thread-channel').filter({ hasText: 'garden' }).waitFor();
    await host.evaluate(`(() => {
      window.__focus = { channel: 'commons', message_id: ${JSON.stringify(chipMessageId)} };
      window.__teamPage.update({ focus: window.__focus });
    })()`);
    await until(host, 'window.__calls.focus.length === 2');
    expect(await host.evaluate('window.__calls.focus[1]')).to.deep.equal({
      focus: { channel: 'commons', message_id: chipMessageId }, outcome: { channel: true, message: true }, same: true,
    });
    expect(await host.getByTestId('thread-channel').textContent()).to.equal('commons');
    await host.locator(`[data-testid="message"][data-id="${chipMessageId}"][data-focused="true"]`).waitFor();
    // The same focus object again is not re-applied; an unknown message is reported as not found.
    await host.evaluate('window.__teamPage.update({ focus: window.__focus })');
    await host.evaluate(`window.__teamPage.update({ focus: { channel: 'commons', message_id: '01ZZZZZZZZZZZZZZZZZZZZZZZZ' } })`);
    await until(host, 'window.__calls.focus.length === 3');
    expect(await host.evaluate('window.__calls.focus[2].outcome')).to.deep.equal({ channel: true, message: false });
    await host.getByTestId('refusal').waitFor();
    expect(await host.getByTestId('refusal').getAttribute('data-status')).to.equal('404');
  });

  it('without a hub prop, mounts a same-origin client; destroy() removes the first instance', async () => {
    await host.evaluate(`(async () => {
      const { mountTeamPage } = await import('/hub/ui/dist/index.js');
      window.__teamPage.destroy();
      const root = document.createElement('div');
      root.id = 'second';
      document.body.append(root);
      window.__second = mountTeamPage(root);
    })()`);
    expect(await host.getByTestId('team-page').count()).to.equal(1);
    await host.getByTestId('seat-key-input').fill(danKey);
    await host.getByTestId('sign-in-button').click();
    await host.getByTestId('identity-seat').filter({ hasText: 'dan' }).waitFor();
    await message(host, 'please look at hub-0042').waitFor();
    expect(await host.locator('[data-testid="work-chip"]').first().evaluate((el) => (el as unknown as { tagName: string }).tagName)).to.equal('SPAN');
    expect(await host.getByTestId('speak-button').count()).to.equal(0);
  });

  it('ran without page errors or blocked resources', () => {
    expect(problems).to.deep.equal([]);
  });
});

function isSubscribe(frame: string, channel: string): boolean {
  try {
    const f = JSON.parse(frame) as { type?: string; channels?: string[] };
    return f.type === 'subscribe' && Array.isArray(f.channels) && f.channels.includes(channel) && [...f.channels].sort().join() === f.channels.join();
  } catch {
    return false;
  }
}

function isEnvelope(frame: string, channel: string, seq: number): boolean {
  try {
    const f = JSON.parse(frame) as { type?: string; envelope?: { channel?: string; seq?: number } };
    return f.type === 'envelope' && f.envelope?.channel === channel && f.envelope?.seq === seq;
  } catch {
    return false;
  }
}

/** Waits until an expression evaluated in the page is true (waitForFunction would eval a string, which the page's CSP forbids). */
async function until(page: Page, expression: string, ms = 5000): Promise<void> {
  await waitForAsync(async () => (await page.evaluate(expression)) === true, ms, expression);
}

async function waitForAsync(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
