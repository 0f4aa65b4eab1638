/**
 * The team page as a new seat meets it, at 1280×900 in a real Chromium against the served page:
 * what fits in the first screen (the Post button, the New channel form, a styled Create button),
 * replying from a message instead of typing a message id, reading an owed charter from the Owed
 * panel (the receipt is recorded), the favicon, and a composer that never sends an empty post.
 * Every step leaves a screenshot in `KEEL_SCREENSHOTS` (default: a temp folder) for a person to look at.
 */
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, Page, Request, Response } from 'playwright-core';
import type { HubHarness } from './helpers/hub.js';
import { launchChromium, message, rawGet, signIn, skipWithoutChromium, startServedHub, waitForAsync, watchProblems } from './helpers/team-page.js';

const VIEWPORT = { width: 1280, height: 900 };
const SHOTS = process.env.KEEL_SCREENSHOTS ?? path.join(os.tmpdir(), 'keel-team-page-newcomer');

describe('team page for a new seat (1280×900)', function () {
  this.timeout(60_000);
  let hub: HubHarness;
  let base: string;
  let browser: Browser;
  let page: Page;
  let newKey: string;
  let benKey: string;
  let benMessageId = '';
  const problems: string[] = [];
  const missing: string[] = [];
  const posts: Request[] = [];

  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  const box = async (testid: string) => {
    const b = await page.getByTestId(testid).first().boundingBox();
    if (!b) throw new Error(`[data-testid=${testid}] is not visible`);
    return b;
  };

  before(async function () {
    skipWithoutChromium(this);
    mkdirSync(SHOTS, { recursive: true });
    console.log(`      screenshots: ${SHOTS}`);
    ({ hub, base } = await startServedHub());
    benKey = await hub.seat('ben');
    newKey = await hub.seat('nia');
    for (const body of ['Morning all — the crossing plan is in notes/plan.md.', 'Who can check the lights before noon?']) {
      const res = await hub.call('POST', '/channels/commons/messages', benKey, { body, status: body.endsWith('?') ? 'open' : 'fyi' });
      expect(res.status).to.equal(200);
      benMessageId = res.body.id;
    }
    browser = await launchChromium();
    const ctx = await browser.newContext({ viewport: VIEWPORT });
    page = await ctx.newPage();
    watchProblems(problems, 'nia', page);
    page.on('response', (res: Response) => {
      if (res.status() === 404) missing.push(res.url());
    });
    page.on('request', (req) => {
      if (req.method() === 'POST' && /\/channels\/[^/]+\/messages$/.test(new URL(req.url()).pathname)) posts.push(req);
    });
    await signIn(page, `${base}/hub/ui/`, newKey, 'nia');
    await page.locator('[data-testid="channel-row"][data-channel="commons"]').click();
    await message(page, 'Who can check the lights').waitFor();
  });

  after(async () => {
    await browser?.close();
    await hub?.stop();
  });

  it('fits the first screen: a one-line New channel input, a styled Create button, Post above the fold', async () => {
    await shot('1-first-screen');
    const name = await box('channel-create-name');
    expect(name.height, 'the one-line channel name input').to.be.within(20, 40);
    const create = await box('channel-create-submit');
    const post = await box('composer-submit');
    expect(post.y + post.height, 'the Post button is on screen without scrolling').to.be.at.most(VIEWPORT.height);
    expect(post.x + post.width).to.be.at.most(VIEWPORT.width);
    expect(create.y + create.height).to.be.at.most(VIEWPORT.height);
    // Beside its field and as tall as it, like Post (not a thin full-width strip under a checkbox).
    expect(Math.abs(create.height - post.height), 'Create as tall as Post').to.be.at.most(2);
    expect(Math.abs(create.y - name.y), 'Create on the name field’s line').to.be.at.most(2);
    expect(create.x, 'Create right of the name field').to.be.at.least(name.x + name.width);
    // Styled like the page's other buttons (not the browser's default grey button).
    const style = (testid: string) => page.getByTestId(testid).first().evaluate((el) => {
      const s = (globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }).getComputedStyle(el);
      return { radius: s.borderRadius, font: s.fontFamily, cursor: s.cursor, background: s.backgroundColor };
    });
    const createStyle = await style('channel-create-submit');
    const postStyle = await style('composer-submit');
    expect(createStyle.radius).to.equal(postStyle.radius);
    expect(createStyle.font).to.equal(postStyle.font);
    expect(createStyle.cursor).to.equal('pointer');
    expect(createStyle.background, 'not the browser default button face').not.to.equal('rgb(239, 239, 239)');
    // No raw id fields for a newcomer to fill in.
    expect(await page.locator('input[placeholder="message id"]:visible').count()).to.equal(0);
    expect(await page.getByTestId('composer-reply-to').count(), 'no reply-to id field').to.equal(0);
  });

  it('never sends an empty post: Post is disabled with a note until there is something to send', async () => {
    const before = posts.length;
    const submit = page.getByTestId('composer-submit');
    expect(await submit.isDisabled()).to.equal(true);
    expect(await page.getByTestId('composer-note').textContent()).to.match(/write a message/i);
    await page.getByTestId('composer-body').fill('   \n  ');
    expect(await submit.isDisabled(), 'whitespace is not a message').to.equal(true);
    await page.getByTestId('composer-body').press('Control+Enter');
    await page.getByTestId('composer-title').fill('a title alone');
    expect(await submit.isDisabled(), 'a title alone is not a message').to.equal(true);
    await shot('2-empty-composer');
    expect(posts.length, 'no post request left the page').to.equal(before);
    await page.getByTestId('composer-title').fill('');
    await page.getByTestId('composer-body').fill('hello from nia');
    expect(await submit.isDisabled()).to.equal(false);
    expect(await page.getByTestId('composer-note').textContent()).to.equal('');
    await submit.click();
    await message(page, 'hello from nia').waitFor();
    expect(await submit.isDisabled(), 'cleared after posting, so disabled again').to.equal(true);
  });

  it('replies from a message: Reply shows the target with a cancel, and the post is threaded under it', async () => {
    const target = page.locator(`[data-testid="message"][data-id="${benMessageId}"]`);
    await target.getByTestId('reply-button').click();
    const chip = page.getByTestId('composer-reply-target');
    await chip.waitFor();
    expect(await chip.getAttribute('data-reply-to')).to.equal(benMessageId);
    expect(await chip.textContent()).to.include('ben').and.include('Who can check the lights');
    expect(await page.getByTestId('composer-status').inputValue()).to.equal('reply');
    await shot('3-replying');
    // Cancel: back to a plain post.
    await page.getByTestId('composer-clear-reply').click();
    await chip.waitFor({ state: 'hidden' });
    expect(await page.getByTestId('composer-status').inputValue()).to.equal('fyi');
    await target.getByTestId('reply-button').click();
    await chip.waitFor();
    await page.getByTestId('composer-body').fill('I can, at eleven');
    const post = await box('composer-submit');
    expect(post.y + post.height, 'Post stays on screen while replying').to.be.at.most(VIEWPORT.height);
    await page.getByTestId('composer-submit').click();
    const reply = message(page, 'I can, at eleven');
    await reply.waitFor();
    expect(await reply.getByTestId('message-reply-to').getAttribute('data-reply-to')).to.equal(benMessageId);
    expect(Number(await reply.getAttribute('data-depth'))).to.equal(1);
    await chip.waitFor({ state: 'hidden' });
  });

  it('answers an ask from the message, showing the ask text (not its id)', async () => {
    const asked = await hub.call('POST', '/channels/commons/messages', benKey, { body: 'Before we open:', status: 'open', asks: [{ text: 'paint the stripes' }] });
    expect(asked.status).to.equal(200);
    const row = message(page, 'Before we open:');
    await row.waitFor({ timeout: 10_000 });
    await row.getByTestId('answer-ask').click();
    const chip = page.getByTestId('composer-reply-target');
    await chip.waitFor();
    expect(await chip.getAttribute('data-reply-to')).to.equal(asked.body.id);
    expect(await page.getByTestId('composer-answering').textContent()).to.include('paint the stripes');
    await page.getByTestId('composer-body').fill('stripes done');
    await page.getByTestId('composer-submit').click();
    const answer = message(page, 'stripes done');
    await answer.waitFor();
    expect(await answer.getByTestId('message-answers').getAttribute('data-answers')).to.equal(asked.body.data.asks[0].id);
  });

  it('reads an owed charter from the Owed panel: the action shows the text and records the receipt', async () => {
    const owedBefore = await hub.call('GET', '/owed', newKey);
    expect(owedBefore.body.charters.map((c: { scope: string }) => c.scope)).to.include('hub');
    await page.getByTestId('tab-owed').click();
    const row = page.locator('[data-testid="owed-row"][data-kind="charter"][data-scope="hub"]');
    await row.waitFor();
    await shot('4-owed-before');
    await row.getByTestId('owed-read-charter').click();
    const text = page.getByTestId('owed-charter-text');
    await text.waitFor();
    expect((await text.textContent())!.length).to.be.above(20);
    await waitForAsync(async () => (await hub.call('GET', '/owed', newKey)).body.charters.every((c: { scope: string }) => c.scope !== 'hub'), 5000, 'the hub charter receipt');
    await row.waitFor({ state: 'detached' });
    await shot('5-owed-after');
    await page.getByTestId('tab-thread').click();
  });

  it('reads an owed room charter from the Owed panel: it opens in Files and the receipt is recorded', async () => {
    await hub.room('crossing', benKey, [newKey]);
    const owed = await hub.call('GET', '/owed', newKey);
    expect(owed.body.charters.map((c: { scope: string }) => c.scope)).to.include('crossing');
    await page.getByTestId('tab-owed').click();
    const row = page.locator('[data-testid="owed-row"][data-kind="charter"][data-scope="crossing"]');
    await row.waitFor({ timeout: 10_000 });
    await row.getByTestId('owed-read-charter').click();
    await page.locator('[data-testid="vfs-version"][data-version="1"]').waitFor();
    expect(await page.getByTestId('vfs-path').inputValue()).to.equal('channel/charter.md');
    await page.locator('[data-testid="vfs-entry"][data-path="channel/charter.md"]').waitFor();
    await shot('5b-room-charter');
    await waitForAsync(async () => (await hub.call('GET', '/owed', newKey)).body.charters.every((c: { scope: string }) => c.scope !== 'crossing'), 5000, 'the room charter receipt');
    await page.locator('[data-testid="channel-row"][data-channel="commons"]').click();
    await page.getByTestId('tab-thread').click();
    await message(page, 'Who can check the lights').waitFor();
  });

  it('serves a favicon (200, same origin, the page CSP intact) and no request of the page is a 404', async () => {
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(href).to.be.a('string');
    const url = new URL(href!, `${base}/hub/ui/`);
    expect(url.origin).to.equal(base);
    const icon = await rawGet(base, url.pathname);
    expect(icon.status).to.equal(200);
    expect(icon.headers['content-type']).to.match(/^image\//);
    expect(icon.headers['x-content-type-options']).to.equal('nosniff');
    const html = await rawGet(base, '/hub/ui/');
    expect(html.headers['content-security-policy']).to.include("default-src 'none'").and.include("img-src 'self' data: blob:");
    expect(missing, 'no 404 while the page loaded and ran').to.deep.equal([]);
  });

  it('keeps Post on screen in a long thread: the thread scrolls, the composer stays', async () => {
    // Few posts (the seat's post budget), each long enough to fill more than a screen together.
    for (let i = 1; i <= 12; i++) {
      const res = await hub.call('POST', '/channels/commons/messages', benKey, { title: `Update ${i}`, body: `status line ${i} of a long morning\n`.repeat(3) });
      expect(res.status).to.equal(200);
    }
    await message(page, 'status line 12 of a long morning').waitFor({ timeout: 10_000 });
    await page.getByTestId('composer-body').fill('still here');
    const post = await box('composer-submit');
    expect(post.y + post.height).to.be.at.most(VIEWPORT.height);
    const list = await box('thread-messages');
    expect(list.y + list.height, 'the thread ends above the composer').to.be.at.most(post.y);
    await shot('6-long-thread');
    // The channel info drawer scrolls within its own height; Post stays on screen beside it.
    await page.getByTestId('channel-info-toggle').click();
    await page.locator('[data-testid="channel-member"][data-agent="ben"]').waitFor();
    const withInfo = await box('composer-submit');
    expect(withInfo.y + withInfo.height, 'Post on screen with the info drawer open').to.be.at.most(VIEWPORT.height);
    await shot('7-info-drawer');
    await page.getByTestId('channel-info-toggle').click();
    await page.getByTestId('composer-body').fill('');
  });

  it('ran without page errors or blocked resources', () => {
    expect(problems).to.deep.equal([]);
  });
});
