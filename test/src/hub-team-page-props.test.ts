/**
 * The team page's panels and host props in a real Chromium against a real kernel: direct
 * messages, channel creation and joining, the info drawer, attachments, ledger verification and
 * thread retraction as two seats use them; then the host props (a host hub client, advisor,
 * speech, board navigation, focus, destroy) through the harness, in the channels and messages the
 * panel tests left behind.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { dmChannelName } from '@keel/hub-team-page';
import type { HubHarness } from './helpers/hub.js';
import {
  channelRow, launchChromium, message, openHarness as openHarnessAt, signIn as signInAt, skipWithoutChromium, startServedHub, until, waitForAsync,
  watchProblems,
} from './helpers/team-page.js';

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

  const watch = (who: string, page: Page) => watchProblems(problems, who, page);

  before(async function () {
    skipWithoutChromium(this);
    ({ hub, base } = await startServedHub());
    caraKey = await hub.seat('cara');
    danKey = await hub.seat('dan');
    // The harness page below is fulfilled by the test (no network address), so Chromium's local
    // network access checks would block its socket to 127.0.0.1; the served page is not affected.
    browser = await launchChromium(['--disable-features=LocalNetworkAccessChecks']);
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

  const signIn = (page: Page, key: string, seat: string) => signInAt(page, `${base}/hub/ui/`, key, seat);

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
    // A member now: Post waits only for something to send.
    expect(await dan.getByTestId('composer-note').textContent()).not.to.match(/^Join/);
    await dan.getByTestId('composer-body').fill('hello garden');
    expect(await dan.getByTestId('composer-submit').isDisabled()).to.equal(false);
    await dan.getByTestId('composer-body').fill('');
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
    expect(await cara.getByTestId('composer-reply-target').getAttribute('data-reply-to')).to.equal(ownId);
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

  const openHarness = () => openHarnessAt(browser, base, (page) => watch('host', page));

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
