/**
 * `body` is required (seed §2.5): a post without it is refused like any missing field (422, the
 * reference's validation shape), on the channel route and the direct-message route, and nothing is
 * stored. An empty string is a body, as on the reference: a post of only attachments or only data
 * is taken.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';
import { SocketClient } from './helpers/socket-client.js';

describe('hub: a post needs a body (seed §2.5)', () => {
  let hub: HubHarness;
  let ann: string;
  let ben: string;

  before(async () => {
    hub = await startHub();
    ({ ann, ben } = await hub.seats(['ann', 'ben']));
    await hub.room('plan', ann, [ben]);
  });
  after(() => hub?.stop());

  const head = async () => (await hub.call('GET', '/channels/plan/messages?limit=1000', ann)).body.length as number;

  it('refuses {} and a post with only a title with 422 naming body, and stores nothing', async () => {
    const before = await head();
    for (const payload of [{}, { title: 'only a title', status: 'open' }]) {
      const res = await hub.call('POST', '/channels/plan/messages', ann, payload);
      expect(res.status, JSON.stringify(payload)).to.equal(422);
      expect(res.body.detail).to.be.an('array').with.length.above(0);
      expect(JSON.stringify(res.body.detail[0].loc)).to.include('body');
    }
    expect(await head()).to.equal(before);
  });

  it('refuses a direct message without a body the same way', async () => {
    const res = await hub.call('POST', '/dms/ben/messages', ann, { title: 'hi' });
    expect(res.status).to.equal(422);
    expect(JSON.stringify(res.body.detail[0].loc)).to.include('body');
    expect((await hub.call('GET', '/channels', ann)).body.map((c: { name: string }) => c.name)).not.to.include('dm:ann--ben');
  });

  it("refuses a socket post frame without a body with an error frame, and stores nothing", async () => {
    const base = (await hub.kernel.listen()).url.replace(/^http/, 'ws');
    const client = await SocketClient.open(`${base}/hub/ws?token=${encodeURIComponent(ann)}`);
    try {
      const before = await head();
      client.send({ type: 'post', channel: 'plan', title: 'no body' });
      client.send({ type: 'post', channel: 'plan', body: 'with a body' });
      await client.until(() => client.ofType('error').length + client.ofType('posted').length >= 2, 'two replies');
      expect(client.ofType('error').map((e) => e.detail)).to.deep.equal(['malformed frame: post needs body (a string; empty when the post carries only attachments or data)']);
      expect(client.ofType('posted')).to.have.length(1);
      expect(await head()).to.equal(before + 1);
    } finally {
      client.ws.terminate();
    }
  });

  it('takes an empty body that carries attachments or data, as the reference does', async () => {
    const bytes = Buffer.from('a file with no words around it');
    const up = await hub.call('POST', '/channels/plan/attachments?filename=note.txt', ann, bytes, { 'content-type': 'text/plain' });
    expect(up.status).to.equal(200);
    expect(up.body.id).to.equal(createHash('sha256').update(bytes).digest('hex'));
    const files = await hub.call('POST', '/channels/plan/messages', ann, { body: '', attachments: [{ id: up.body.id }] });
    expect(files.status).to.equal(200);
    expect(files.body.body).to.equal('');
    expect(files.body.data.attachments[0].id).to.equal(up.body.id);
    const data = await hub.call('POST', '/channels/plan/messages', ben, { body: '', data: { item_ref: 'plan-0001' } });
    expect(data.status).to.equal(200);
    expect(data.body.data.item_ref).to.equal('plan-0001');
  });
});
