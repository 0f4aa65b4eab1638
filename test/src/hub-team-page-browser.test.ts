/**
 * The team page as a person uses it: served by the hub plugin under `/hub/ui/`, driven in a real
 * Chromium through playwright-core against a real kernel on a real port, with a second seat acting
 * over HTTP and from a second browser context: sign-in, posting, the live socket, rating, search,
 * refusals, asks and answers, the inbox, files, retraction, and protocol and pause warnings.
 */
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { HubHarness } from './helpers/hub.js';
import {
  launchChromium, message, rawGet, signIn as signInAt, skipWithoutChromium, startServedHub, waitFor, waitForAsync, watchProblems,
} from './helpers/team-page.js';

const LIVE_MS = 4000; // below the 5 s poll, so an arrival this fast came over the socket

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
    skipWithoutChromium(this);
    ({ hub, base } = await startServedHub());
    // One clear failure instead of a timeout per step when the page is not served at all.
    const probe = await rawGet(base, '/hub/ui/');
    if (probe.status !== 200) throw new Error(`GET /hub/ui/ answered ${probe.status}: the hub plugin does not serve the team page (is uiRoutes() mounted?)`);
    annKey = await hub.seat('ann');
    benKey = await hub.seat('ben');
    browser = await launchChromium();
    annCtx = await browser.newContext();
    benCtx = await browser.newContext();
    ann = await annCtx.newPage();
    ben = await benCtx.newPage();
    watchProblems(problems, 'ann', ann);
    watchProblems(problems, 'ben', ben);
    ann.on('websocket', (ws) => {
      ws.on('framereceived', (f) => framesIn.push(String(f.payload)));
      ws.on('framesent', (f) => framesOut.push(String(f.payload)));
    });
  });

  after(async () => {
    await browser?.close();
    await hub?.stop();
  });

  // Through `/hub/ui`, so every sign-in also follows the redirect to `/hub/ui/`.
  const signIn = (page: Page, key: string, seat: string) => signInAt(page, `${base}/hub/ui`, key, seat);

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
    await question.locator('[data-testid="ask"][data-pending="true"]').nth(1).waitFor();
    expect(await question.locator('[data-testid="ask"][data-pending="true"]').count()).to.equal(2);
    const lightsId = (await question.getByTestId('ask').filter({ hasText: 'check the lights' }).getAttribute('data-ask-id'))!;

    const onBen = message(ben, 'Two checks before we open the crossing');
    await onBen.waitFor({ timeout: 8000 });
    await onBen.getByTestId('ask').filter({ hasText: 'check the lights' }).getByTestId('answer-ask').click();
    expect(await ben.getByTestId('composer-reply-target').getAttribute('data-reply-to')).to.equal(await question.getAttribute('data-id'));
    expect(await ben.getByTestId('composer-answering').getAttribute('data-answers')).to.equal(lightsId);
    expect(await ben.getByTestId('composer-answering').textContent()).to.include('check the lights');
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
