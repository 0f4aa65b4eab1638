import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { hubPlugin } from '@keel/plugin-hub';

// `GET /search` through HTTP. The search budget is 10 per seat at once, so tests that search a
// lot take a fresh reader seat.

interface Res {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}
interface Hit {
  kind: string;
  ref: string;
  channel: string | null;
  seq: number | null;
  snippet: string;
  highlights: Array<[number, number]>;
  thread_hits: number | null;
  created_at: number;
  ratings: { up: number; down: number; mine: number } | null;
}

describe('hub search', function () {
  this.timeout(30_000);
  let k: TestKernel;
  const keys: Record<string, string> = {};
  let readers = 0;

  async function register(id: string, about = ''): Promise<string> {
    const res = await k.inject({ method: 'POST', url: '/hub/agents', token: k.adminToken, payload: { id, about } });
    expect(res.statusCode, res.body).to.equal(200);
    return (keys[id] = JSON.parse(res.body).api_key);
  }
  async function call(method: string, url: string, token: string, payload?: unknown): Promise<Res> {
    const res = await k.inject({ method, url: `/hub${url}`, token, payload });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : null };
  }
  async function ok(method: string, url: string, token: string, payload?: unknown): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await call(method, url, token, payload);
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).to.equal(200);
    return res.body;
  }
  const post = (who: string, channel: string, payload: Record<string, unknown>) => ok('POST', `/channels/${channel}/messages`, keys[who]!, payload);
  /** A fresh seat in the public room, with a full search budget. */
  async function reader(): Promise<string> {
    const key = await register(`reader${++readers}`);
    await ok('POST', '/channels/plaza/join', key, {});
    return key;
  }
  /** Posts land in distinct milliseconds, so recency order is the posting order. */
  const tick = () => new Promise((resolve) => setTimeout(resolve, 3));
  const search = (token: string, qs: string) => call('GET', `/search?${qs}`, token);

  before(async () => {
    k = await createTestKernel({ plugins: [hubPlugin] });
    await register('alice', 'release manager for the rocket team');
    await register('bob');
    await ok('POST', '/channels', keys.alice!, { name: 'plaza', private: false });
    await ok('POST', '/channels/plaza/join', keys.bob!, {});
    await ok('POST', '/channels', keys.alice!, { name: 'vault', private: true });
  });
  after(async () => k?.stop());

  describe('parameters', () => {
    it('refuses limit > 10 without a kind with 422 and the seed sentence; accepts it with a kind', async () => {
      const key = await reader();
      const res = await search(key, 'q=anything&limit=11');
      expect(res.status).to.equal(422);
      expect(res.body.detail).to.equal('limit > 10 requires a kind filter');
      expect((await search(key, 'q=anything&limit=11&kind=message')).status).to.equal(200);
      expect((await search(key, 'q=anything&limit=51&kind=message')).status, 'limit is 1..50').to.equal(422);
      expect((await search(key, 'q=anything&limit=0')).status).to.equal(422);
    });

    it('refuses an empty query unless rated is set, and unknown kind, sort and rated words with 400', async () => {
      const key = await reader();
      const empty = await search(key, 'q=');
      expect(empty.status).to.equal(400);
      expect(empty.body.detail).to.match(/rated/);
      expect((await search(key, 'q=%20%21%21')).status, 'no searchable words').to.equal(400);
      expect((await search(key, 'q=&rated=any')).status).to.equal(200);
      expect((await search(key, 'q=x&kind=thread')).status).to.equal(400);
      expect((await search(key, 'q=x&sort=oldest')).status).to.equal(400);
      expect((await search(key, 'q=x&rated=maybe')).status).to.equal(400);
      expect((await search(key, `q=${'a'.repeat(257)}`)).status, 'q is at most 256 characters').to.equal(422);
    });

    it('serves all six sections and the report fields, with hits carrying no body and no score', async () => {
      const key = await reader();
      await post('alice', 'plaza', { title: 'shape check', body: 'quokka sighting near the harbour', status: 'fyi' });
      const report = await ok('GET', '/search?q=quokka', key);
      for (const s of ['decisions', 'open_threads', 'work', 'people', 'files', 'messages']) {
        expect(report[s], s).to.have.all.keys('hits', 'shown', 'total');
      }
      expect(report).to.include({ relaxed: false, next_cursor: null, mode_used: 'lexical', semantic_coverage: null, notice: null });
      expect(report.channels_searched).to.equal(2, 'commons and plaza');
      expect(report.computed_at).to.be.a('number');
      const hit = report.messages.hits[0];
      expect(hit).to.have.all.keys('kind', 'ref', 'channel', 'seq', 'sender', 'status', 'created_at', 'snippet', 'highlights', 'title', 'thread_hits', 'ratings');
      expect(hit).to.include({ kind: 'message', channel: 'plaza', sender: 'alice', status: 'fyi', title: 'shape check', thread_hits: 1 });
      expect(report.messages).to.include({ shown: 1, total: 1 });
    });
  });

  describe('matching', () => {
    it('gives highlights as code-point offsets into the snippet (an emoji before the match)', async () => {
      const key = await reader();
      await post('alice', 'plaza', { body: '🚀 launch the rocket at dawn', status: 'fyi' });
      const report = await ok('GET', '/search?q=rocket&kind=message', key);
      const hit = report.messages.hits[0] as Hit;
      expect(hit.snippet).to.equal('🚀 launch the rocket at dawn');
      expect(hit.highlights).to.deep.equal([[13, 6]], 'UTF-16 offsets would say 14');
      const [start, length] = hit.highlights[0]!;
      expect(Array.from(hit.snippet).slice(start, start + length).join('')).to.equal('rocket');
    });

    it('matches by word prefix, case-insensitively, and needs every term unless it relaxes', async () => {
      const key = await reader();
      await post('alice', 'plaza', { title: 'Deployment window', body: 'the DEPLOYMENT of the ferry service', status: 'fyi' });
      const prefix = await ok('GET', '/search?q=deploy%20ferry&kind=message', key);
      expect(prefix.messages.total).to.equal(1);
      expect(prefix.relaxed).to.equal(false);
      const relaxed = await ok('GET', '/search?q=ferry%20xylophonics&kind=message', key);
      expect(relaxed.relaxed).to.equal(true);
      expect(relaxed.messages.total).to.equal(1);
      const none = await ok('GET', '/search?q=xylophonics&kind=message', key);
      expect(none.relaxed).to.equal(false);
      expect(none.messages.total).to.equal(0);
    });

    it('searches only the channels the viewer belongs to, and honours channel and channel[] filters', async () => {
      await post('alice', 'vault', { body: 'the zebra code is 1234', status: 'fyi' });
      await post('alice', 'plaza', { body: 'a zebra crossing outside', status: 'fyi' });
      const bob = await reader();
      const outsider = await ok('GET', '/search?q=zebra&kind=message', bob);
      expect(outsider.messages.hits.map((h: Hit) => h.channel)).to.deep.equal(['plaza']);
      const owner = await ok('GET', '/search?q=zebra&kind=message', keys.alice!);
      expect(owner.messages.hits.map((h: Hit) => h.channel).sort()).to.deep.equal(['plaza', 'vault']);
      const repeated = await ok('GET', '/search?q=zebra&kind=message&channel=vault&channel=commons', keys.alice!);
      expect(repeated.channels_searched).to.equal(2);
      expect(repeated.messages.hits.map((h: Hit) => h.channel)).to.deep.equal(['vault']);
      const bracketed = await ok('GET', '/search?q=zebra&kind=message&channel[]=plaza', keys.alice!);
      expect(bracketed.messages.hits.map((h: Hit) => h.channel)).to.deep.equal(['plaza']);
      const notMine = await ok('GET', '/search?q=zebra&kind=message&channel=vault', bob);
      expect(notMine.channels_searched, 'a channel the viewer is not in is not searched').to.equal(0);
      expect(notMine.messages.total).to.equal(0);
    });

    it('never matches retracted messages', async () => {
      const key = await reader();
      const m = await post('bob', 'plaza', { body: 'papaya smoothie recipe', status: 'fyi' });
      expect((await ok('GET', '/search?q=papaya&kind=message', key)).messages.total).to.equal(1);
      await ok('POST', `/channels/plaza/messages/${m.id}/retract`, keys.bob!, {});
      const after = await ok('GET', '/search?q=papaya&kind=message', key);
      expect(after.messages.total).to.equal(0);
      expect(after.open_threads.total).to.equal(0);
      expect((await ok('GET', '/search?q=retracted&kind=message', key)).messages.total, 'the tombstone text is not searchable').to.equal(0);
    });

    it('collapses a thread to one row with thread_hits, and puts live obligations in open_threads', async () => {
      const key = await reader();
      const root = await post('alice', 'plaza', { title: 'kiwi harvest', body: 'when do we pick the kiwi?', status: 'open', asks: [{ text: 'which week for kiwi?' }] });
      const r1 = await post('bob', 'plaza', { body: 'kiwi look ripe next week', status: 'fyi', reply_to: root.id });
      await tick();
      await post('alice', 'plaza', { body: 'great, kiwi it is', status: 'fyi', reply_to: r1.id });
      await post('bob', 'plaza', { body: 'unrelated kiwi note', status: 'fyi' });
      const report = await ok('GET', '/search?q=kiwi&kind=message', key);
      expect(report.open_threads.total).to.equal(1);
      expect(report.open_threads.hits[0].thread_hits).to.equal(3);
      expect(report.messages.total).to.equal(1);
      expect(report.messages.hits[0].thread_hits).to.equal(1);
      const recent = await ok('GET', '/search?q=kiwi&kind=message&sort=recent', key);
      expect(recent.open_threads.hits[0].snippet, 'recent shows the thread’s newest row').to.equal('great, kiwi it is');
    });

    it('finds people by id and about, in the people section', async () => {
      const key = await reader();
      const report = await ok('GET', '/search?q=release%20manager', key);
      expect(report.people.hits.map((h: Hit) => h.ref)).to.deep.equal(['alice']);
      expect(report.people.hits[0]).to.include({ kind: 'agent', channel: null, seq: null, thread_hits: null, ratings: null });
      expect((await ok('GET', '/search?q=alice&kind=agent', key)).people.total).to.equal(1);
      expect((await ok('GET', '/search?q=alice&kind=message', key)).people.total, 'the kind filter keeps other sections empty').to.equal(0);
    });

    it('finds files, decisions and work rows in their sections, and narrows work to a ref', async () => {
      const key = await reader();
      await ok('PUT', '/channels/plaza/fs/notes/ferry-plan.md', keys.alice!, { content: 'The wombat schedule for the ferry.' });
      await ok('PUT', `/channels/plaza/store/${encodeURIComponent('decision:wombat-route')}`, keys.alice!, { value: { title: 'Wombat route', text: 'we take the coastal wombat route' } });
      await ok('PUT', `/channels/plaza/store/${encodeURIComponent('work:core-0042')}`, keys.bob!, { value: { title: 'wombat tracker', status: 'doing' } });
      await ok('PUT', `/channels/plaza/store/${encodeURIComponent('work:core-0043')}`, keys.bob!, { value: { title: 'wombat feeder', status: 'todo' } });
      const report = await ok('GET', '/search?q=wombat', key);
      expect(report.files.hits.map((h: Hit) => [h.kind, h.ref, h.channel])).to.deep.equal([['file', 'notes/ferry-plan.md', 'plaza']]);
      expect(report.files.hits[0].highlights).to.deep.equal([[4, 6]]);
      expect(report.decisions.hits.map((h: Hit) => [h.kind, h.ref])).to.deep.equal([['decision', 'decision:wombat-route']]);
      expect(report.work.hits.map((h: Hit) => h.ref).sort()).to.deep.equal(['work:core-0042', 'work:core-0043']);
      expect(report.work.hits.find((h: Hit) => h.ref === 'work:core-0042')).to.include({ kind: 'work', status: 'doing', sender: 'bob', title: 'wombat tracker' });
      expect(report.messages.total, 'fs audit rows are not messages').to.equal(0);
      const one = await ok('GET', '/search?q=wombat&kind=work&ref=core-0042', key);
      expect(one.work.hits.map((h: Hit) => h.ref)).to.deep.equal(['work:core-0042']);
      expect((await ok('GET', '/search?q=wombat&kind=file', key)).decisions.total).to.equal(0);
    });

    it('filters by sender and time window', async () => {
      const key = await reader();
      const a = await post('alice', 'plaza', { body: 'walrus one', status: 'fyi' });
      await tick();
      const b = await post('bob', 'plaza', { body: 'walrus two', status: 'fyi' });
      expect((await ok('GET', '/search?q=walrus&kind=message&sender=bob', key)).messages.hits.map((h: Hit) => h.ref)).to.deep.equal([b.id]);
      const since = await ok('GET', `/search?q=walrus&kind=message&since=${b.created_at}`, key);
      expect(since.messages.hits.map((h: Hit) => h.ref)).to.deep.equal([b.id]);
      const until = await ok('GET', `/search?q=walrus&kind=message&until=${a.created_at}`, key);
      expect(until.messages.hits.map((h: Hit) => h.ref)).to.deep.equal([a.id]);
    });

    it('lists rated messages without a query, filters by rating, and sorts by votes', async () => {
      const key = await reader();
      const liked = await post('alice', 'plaza', { body: 'nectarine tart', status: 'fyi' });
      const disliked = await post('alice', 'plaza', { body: 'nectarine soup', status: 'fyi' });
      const loved = await post('alice', 'plaza', { body: 'nectarine jam', status: 'fyi' });
      await ok('PUT', `/channels/plaza/messages/${liked.id}/rating`, keys.bob!, { value: 1 });
      await ok('PUT', `/channels/plaza/messages/${disliked.id}/rating`, keys.bob!, { value: -1 });
      await ok('PUT', `/channels/plaza/messages/${loved.id}/rating`, keys.bob!, { value: 1 });
      await ok('PUT', `/channels/plaza/messages/${loved.id}/rating`, key, { value: 1 });
      const up = await ok('GET', '/search?q=&rated=up&kind=message&sort=votes', key);
      expect(up.messages.hits.map((h: Hit) => h.ref)).to.deep.equal([loved.id, liked.id]);
      expect(up.messages.hits[0].ratings).to.deep.equal({ up: 2, down: 0, mine: 1 });
      const down = await ok('GET', '/search?q=nectarine&rated=down', key);
      expect(down.messages.hits.map((h: Hit) => h.ref)).to.deep.equal([disliked.id]);
      const popular = await ok('GET', '/search?q=nectarine&min_votes=2', key);
      expect(popular.messages.hits.map((h: Hit) => h.ref)).to.deep.equal([loved.id]);
    });
  });

  describe('paging', () => {
    const lychees: string[] = [];
    before(async () => {
      for (let i = 0; i < 12; i++) {
        lychees.push((await post('bob', 'plaza', { body: `lychee batch ${i}`, status: 'fyi' })).id);
        await tick();
      }
    });

    it('relevance mode never pages', async () => {
      const key = await reader();
      const report = await ok('GET', '/search?q=lychee&kind=message&limit=5', key);
      expect(report.messages.shown).to.equal(5);
      expect(report.messages.total).to.equal(12);
      expect(report.next_cursor).to.equal(null);
      expect((await ok('GET', '/search?q=lychee&sort=recent&limit=5', key)).next_cursor, 'recent without a kind does not page').to.equal(null);
    });

    it('sort=recent with one kind pages newest first by an opaque url-safe cursor; a malformed cursor restarts', async () => {
      const key = await reader();
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const qs: string = `q=lychee&kind=message&sort=recent&limit=5${cursor ? `&cursor=${cursor}` : ''}`;
        const page = await ok('GET', `/search?${qs}`, key);
        expect(page.messages.total, 'totals count every match').to.equal(12);
        seen.push(...page.messages.hits.map((h: Hit) => h.ref));
        cursor = page.next_cursor;
        if (cursor) expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
        pages++;
      } while (cursor && pages < 5);
      expect(pages).to.equal(3);
      expect(seen).to.deep.equal([...lychees].reverse());
      const restarted = await ok('GET', '/search?q=lychee&kind=message&sort=recent&limit=5&cursor=%%%not-a-cursor', key);
      expect(restarted.messages.hits.map((h: Hit) => h.ref)).to.deep.equal(seen.slice(0, 5));
      const garbage = await ok('GET', '/search?q=lychee&kind=message&sort=recent&limit=5&cursor=bm9wZQ', key);
      expect(garbage.messages.hits.map((h: Hit) => h.ref)).to.deep.equal(seen.slice(0, 5));
    });
  });

  it('spends a per-seat budget: burst 10, then 429 with the wait in seconds', async () => {
    const key = await reader();
    for (let i = 0; i < 10; i++) expect((await search(key, 'q=budget')).status, `search ${i + 1}`).to.equal(200);
    const refused = await search(key, 'q=budget');
    expect(refused.status).to.equal(429);
    expect(refused.body.detail).to.match(/^search budget exhausted; retry in \d+s$/);
    expect((await search(await reader(), 'q=budget')).status, 'budgets are per seat').to.equal(200);
  });
});
