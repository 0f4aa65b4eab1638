import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';

describe('hub content: charters', () => {
  let hub: HubHarness;
  let ann: string;
  let bob: string;
  let op: string;

  before(async () => {
    hub = await startHub();
    ({ ann, bob, op } = await hub.seats(['ann', 'bob', 'op'], ['op']));
  });
  after(() => hub.stop());

  const pointer = async (token: string) => (await hub.call('GET', '/whoami', token)).body.hub_charter;

  describe('hub charter', () => {
    it('points whoami at the packaged charter (v0) before any reading, never with its text', async () => {
      const who = (await hub.call('GET', '/whoami', ann)).body;
      expect(who.hub_charter).to.deep.equal({
        version: 0, your_receipt: null, current: false, view: ['member'], view_current: false,
        read_with: 'read_charter() / GET /charter', note: who.hub_charter.note,
      });
      expect(who.hub_charter.note).to.be.a('string').and.not.equal('');
      expect(who.hub_charter).to.not.have.property('text');
      expect(who.hub_rules.version).to.equal(0);
      expect(who.hub_rules.text).to.include('Every seat');
    });

    it("serves the member's view of the packaged text and records the receipt", async () => {
      const res = await hub.call('GET', '/charter', ann);
      expect(res.status).to.equal(200);
      const doc = res.body;
      expect(doc).to.include({ version: 0, packaged: true, scope: 'hub', your_receipt: 0, sliced: true, updated_by: 'hub', read_all_with: 'read_charter(full=True) / GET /charter?full=true' });
      expect(doc.view).to.deep.equal(['member']);
      expect(doc.powers).to.deep.equal([]);
      expect(doc.omitted).to.deep.equal(['Room owners', 'Delegates', 'Operators']);
      expect(doc.text).to.include('## Every seat').and.not.include('## Room owners');
      expect(doc.bytes).to.equal(Buffer.byteLength(doc.text));
      expect(doc.bytes).to.be.below(doc.full_bytes);
      expect(doc.view_note).to.be.a('string').and.not.equal('');
      expect(doc).to.not.have.property('delegate_brief');
      const p = await pointer(ann);
      expect(p).to.deep.equal({ version: 0, your_receipt: 0, current: true, view: ['member'], view_current: true, read_with: 'read_charter() / GET /charter' });
    });

    it('asks for a re-read when the seat grows a role (view_current false), and full=true serves everything', async () => {
      await hub.room('anns-room', ann);
      const grown = await pointer(ann);
      expect(grown).to.include({ current: true, view_current: false });
      expect(grown.view).to.deep.equal(['member', 'owner']);
      expect(grown.note).to.include('owner');
      const sliced = (await hub.call('GET', '/charter', ann)).body;
      expect(sliced.text).to.include('## Room owners').and.not.include('## Operators');
      expect(sliced.omitted).to.deep.equal(['Delegates', 'Operators']);
      expect((await pointer(ann)).view_current).to.equal(true);
      const full = (await hub.call('GET', '/charter?full=true', bob)).body;
      expect(full).to.include({ sliced: false });
      expect(full.omitted).to.deep.equal([]);
      expect(full.bytes).to.equal(full.full_bytes);
      expect(full.text).to.include('## Operators');
    });

    it("gives operators the whole text and every power", async () => {
      const doc = (await hub.call('GET', '/charter', op)).body;
      expect(doc.view).to.deep.equal(['member', 'owner', 'delegate', 'operator']);
      expect(doc.sliced).to.equal(false);
      expect(doc.powers).to.deep.equal(['moderation', 'operational', 'proxy', 'reporting', 'ruling']);
    });

    it('lets only an operator (or the admin key) replace it; each replacement is the next version', async () => {
      const refused = await hub.call('PUT', '/charter', ann, { text: '# mine' });
      expect(refused.status).to.equal(403);
      expect(refused.body.detail).to.equal('replacing the hub charter is an operator act');
      expect((await hub.call('PUT', '/charter', op, { text: '   ' })).status).to.equal(400);
      const byAdmin = await hub.call('PUT', '/charter', hub.kernel.adminToken, { text: '# Charter v1\n\nBe kind.\n' });
      expect(byAdmin.status).to.equal(200);
      expect(byAdmin.body).to.include({ version: 1, updated_by: 'operator', packaged: false });
      const byOp = await hub.call('PUT', '/charter', op, { text: '# Charter v2\n\nBe kind and brief.\n' });
      expect(byOp.body.version).to.equal(2);
      // The writer holds a receipt for what it wrote; everyone else is behind.
      expect(await pointer(op)).to.include({ version: 2, your_receipt: 2, current: true });
      expect(await pointer(ann)).to.include({ version: 2, your_receipt: 0, current: false });
      const doc = (await hub.call('GET', '/charter', ann)).body;
      expect(doc).to.include({ version: 2, packaged: false, updated_by: 'op', text: '# Charter v2\n\nBe kind and brief.\n', your_receipt: 2 });
      // The hub rules are a text of their own (PUT /admin/rules): a new charter leaves them as they were.
      expect((await hub.call('GET', '/whoami', ann)).body.hub_rules.version).to.equal(0);
    });
  });

  describe('room charter', () => {
    it('is born with channel/charter.md v1 written by the creator (no fs audit row), shown in channel info', async () => {
      await hub.room('garden', ann, [bob]);
      const file = await hub.call('GET', '/channels/garden/fs/channel/charter.md', bob);
      expect(file.status).to.equal(200);
      expect(file.body).to.include({ path: 'channel/charter.md', version: 1, updated_by: 'ann', mime: 'text/markdown', encoding: null });
      expect(file.body.content).to.include('garden');
      const info = (await hub.call('GET', '/channels/garden/info', bob)).body;
      expect(info.charter).to.deep.equal({ path: 'channel/charter.md', version: 1, updated_by: 'ann', updated_at: file.body.updated_at });
      const rows = (await hub.call('GET', '/channels/garden/messages', bob)).body as Array<{ kind: string }>;
      expect(rows.filter((m) => m.kind === 'fs')).to.deep.equal([]);
    });

    it("answers 404 for channels without a charter (commons)", async () => {
      const res = await hub.call('GET', '/channels/commons/charter', ann);
      expect(res.status).to.equal(404);
      expect(res.body.detail).to.equal("file 'channel/charter.md' not found in 'commons'");
      expect((await hub.call('GET', '/channels/commons/fs/channel/charter.md', ann)).status).to.equal(404);
    });

    it('gates posts in a norms_required room until the seat read the current version; reading the head clears it', async () => {
      await hub.room('strict', ann);
      const meta = await hub.call('PUT', '/channels/strict/store/channel%3Ameta', ann, { value: { purpose: 'rules first', norms_required: true } });
      expect(meta.status).to.equal(200);
      await hub.call('POST', '/channels/strict/join', bob, {});
      const refused = await hub.call('POST', '/channels/strict/messages', bob, { body: 'hello' });
      expect(refused.status).to.equal(409);
      expect(refused.body.detail).to.equal("this channel requires reading its charter first: read_charter(channel='strict') (v1, at 'channel/charter.md'), then retry");
      // An archived version read is not a reading of the charter in force.
      await hub.call('GET', '/channels/strict/fs/channel/charter.md?version=1', bob);
      expect((await hub.call('POST', '/channels/strict/messages', bob, { body: 'hello' })).status).to.equal(409);
      expect((await hub.call('GET', '/channels/strict/fs/channel/charter.md', bob)).status).to.equal(200);
      expect((await hub.call('POST', '/channels/strict/messages', bob, { body: 'hello' })).status).to.equal(200);
      // The owner (writer of v1) was never gated.
      expect((await hub.call('POST', '/channels/strict/messages', ann, { body: 'welcome' })).status).to.equal(200);
    });

    it("a new version re-gates readers; writing it is the writer's receipt; GET /channels/{c}/charter also clears it", async () => {
      const edit = await hub.call('PUT', '/channels/strict/fs/channel/charter.md', ann, { content: '# strict\n\nNew rule.\n', expect_version: 1 });
      expect(edit.body.version).to.equal(2);
      expect((await hub.call('POST', '/channels/strict/messages', ann, { body: 'still fine' })).status).to.equal(200);
      const refused = await hub.call('POST', '/channels/strict/messages', bob, { body: 'again' });
      expect(refused.status).to.equal(409);
      expect(refused.body.detail).to.include('(v2, at ');
      const doc = await hub.call('GET', '/channels/strict/charter', bob);
      expect(doc.status).to.equal(200);
      expect(doc.body).to.include({ scope: 'strict', path: 'channel/charter.md', version: 2, your_receipt: 2, updated_by: 'ann', gated: true, text: '# strict\n\nNew rule.\n' });
      expect((await hub.call('POST', '/channels/strict/messages', bob, { body: 'again' })).status).to.equal(200);
    });

    it('does not gate rooms without norms_required', async () => {
      expect((await hub.call('POST', '/channels/garden/messages', bob, { body: 'no reading needed' })).status).to.equal(200);
    });
  });
});
