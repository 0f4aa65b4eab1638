/**
 * Issue 14 security review (LMDB prefix ranges): a channel's files and store keys were listed with
 * the range end `[channel, '\uffff']` (and `[channel, prefix + '\uffff']`), which leaves out every
 * path or key starting with a character above U+FFFF (an emoji: ordered-binary writes UTF-8) or with
 * U+FFFF itself. Such a file was written (200) but missing from `GET /fs` and from a `prefix=`
 * listing; such a store key was missing from `GET /store`. An ask id is the poster's choice too:
 * an ask named so was missing from its addressee's `GET /owed` (what the seat owes nobody saw). A
 * ruling keyed `ruling:<emoji>…` was left out of the digest and of the `rulings_required` post gate,
 * so seats posted without ever acknowledging it.
 */
import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';

const HOSTILE = ['\u{1F600} plan.md', '\uffff.md', '\u{10FFFF}\u{10FFFF}.md'];

describe('ranges: hub files and store keys starting with U+FFFF or above it are listed', function () {
  this.timeout(120_000);
  let hub: HubHarness;
  let owner: string;
  let ann: string;

  before(async () => {
    hub = await startHub();
    ({ owner, ann } = await hub.seats(['owner', 'ann']));
    await hub.room('proj', owner, [ann]);
  });
  after(() => hub.stop());

  const paths = async (query = ''): Promise<string[]> => {
    const res = await hub.call('GET', `/channels/proj/fs${query}`, ann);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return (res.body as Array<{ path: string }>).map((e) => e.path);
  };

  it('GET /fs lists files whose path starts with an emoji or U+FFFF', async () => {
    for (const path of [...HOSTILE, 'plain.md']) {
      const put = await hub.call('PUT', `/channels/proj/fs/${encodeURIComponent(path)}`, ann, { content: 'hidden?' });
      expect(put.status, JSON.stringify(put.body)).to.equal(200);
    }
    expect(await paths()).to.include.members([...HOSTILE, 'plain.md']);
  });

  it('GET /fs?prefix= lists the files under a prefix whose next character is an emoji or U+FFFF', async () => {
    for (const path of ['dir/\u{1F600}.md', 'dir/\uffff.md', 'dir/a.md', 'dirt.md']) {
      expect((await hub.call('PUT', `/channels/proj/fs/${encodeURIComponent(path)}`, ann, { content: 'x' })).status).to.equal(200);
    }
    expect((await paths('?prefix=dir/')).sort()).to.deep.equal(['dir/a.md', 'dir/\u{1F600}.md', 'dir/\uffff.md'].sort());
    expect(await paths(`?prefix=${encodeURIComponent('\u{1F600}')}`)).to.deep.equal(['\u{1F600} plan.md']);
  });

  it('GET /store lists keys starting with an emoji or U+FFFF', async () => {
    for (const key of ['\u{1F600}key', '\uffffkey', 'plain-key']) {
      const put = await hub.call('PUT', `/channels/proj/store/${encodeURIComponent(key)}`, ann, { value: { n: 1 } });
      expect(put.status, JSON.stringify(put.body)).to.equal(200);
    }
    const res = await hub.call('GET', '/channels/proj/store', ann);
    expect(res.status).to.equal(200);
    expect((res.body as Array<{ key: string }>).map((r) => r.key)).to.include.members(['\u{1F600}key', '\uffffkey', 'plain-key']);
  });

  it('GET /owed lists asks whose id starts with an emoji or U+FFFF to their addressee', async () => {
    const asks = [{ id: '\u{1F600}q', text: 'ship it?', to: ['ann'] }, { id: '\uffffq', text: 'who signs?', to: ['ann'] }];
    const post = await hub.call('POST', '/channels/proj/messages', owner, { title: 'two questions', body: 'see asks', status: 'open', asks });
    expect(post.status, JSON.stringify(post.body)).to.equal(200);
    const res = await hub.call('GET', '/owed', ann);
    expect(res.status).to.equal(200);
    const row = (res.body as { to_answer: Array<{ id: string; asks_naming_you: string[] }> }).to_answer.find((r) => r.id === (post.body as { id: string }).id);
    expect(row, 'the message is owed by ann').to.not.equal(undefined);
    expect(row!.asks_naming_you).to.deep.equal(['\u{1F600}q', '\uffffq']);
  });

  it('a rulings_required room gates posts on a ruling whose name starts with an emoji until it is acknowledged', async () => {
    await hub.room('ruled', owner, [ann]);
    const put = (key: string, value: unknown) => hub.call('PUT', `/channels/ruled/store/${encodeURIComponent(key)}`, owner, { value });
    expect((await put('channel:meta', { rulings_required: true })).status).to.equal(200);
    const ruling = 'ruling:\u{1F6AB} no force push';
    expect((await put(ruling, { text: 'never force-push main', scope: [] })).status).to.equal(200);
    const digest = await hub.call('GET', '/channels/ruled/digest', ann);
    expect((digest.body as { unacknowledged_rulings: Array<{ key: string }> }).unacknowledged_rulings.map((r) => r.key)).to.deep.equal([ruling]);
    const refused = await hub.call('POST', '/channels/ruled/messages', ann, { body: 'hi' });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(409);
    expect((refused.body as { detail: string }).detail).to.include(`pending: ${ruling}`);
    expect((await hub.call('POST', '/channels/ruled/ruling-acks', ann, { keys: [ruling] })).status).to.equal(200);
    expect((await hub.call('POST', '/channels/ruled/messages', ann, { body: 'hi' })).status).to.equal(200);
  });
});
