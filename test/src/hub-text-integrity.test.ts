/**
 * Issue 9 item 11: a lone UTF-16 surrogate in hub text would be hashed as sent but stored as U+FFFD,
 * breaking the channel's chain for good. Every hub input is refused with 400 instead, over HTTP and
 * over the socket's `post` frame, and the ledgers keep verifying.
 */
import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';
import { SocketClient } from './helpers/socket-client.js';

const LONE_HIGH = '\ud800';
const LONE_LOW = '\udc00';

describe('hub text integrity: lone surrogates are refused, chains stay verified', function () {
  this.timeout(60_000);
  let hub: HubHarness;
  let ada: string;
  let bob: string;

  before(async () => {
    hub = await startHub();
    ada = await hub.seat('ada', { operator: true });
    bob = await hub.seat('bob');
    await hub.room('plans', ada, [bob]);
  });
  after(() => hub?.stop());

  const verified = async (channel: string) => {
    const ledger = (await hub.call('GET', `/channels/${channel}/ledger`, ada)).body;
    expect(ledger, JSON.stringify(ledger).slice(0, 300)).to.include({ channel, verified: true, broken_at: null });
    return ledger;
  };
  const expectRefused = (res: { status: number; body: unknown }, where: RegExp) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    const detail = (res.body as { detail: string }).detail;
    expect(detail).to.be.a('string');
    expect(detail).to.match(where);
    expect(detail).to.match(/lone UTF-16 surrogate/);
  };

  it('refuses a lone surrogate in a message body, a title and inside data with 400', async () => {
    expectRefused(await hub.call('POST', '/channels/plans/messages', bob, { body: `half an emoji ${LONE_HIGH}` }), /body\.body/);
    expectRefused(await hub.call('POST', '/channels/plans/messages', bob, { body: 'fine', title: `t${LONE_LOW}` }), /body\.title/);
    expectRefused(await hub.call('POST', '/channels/plans/messages', bob, { body: 'fine', data: { note: [`x${LONE_HIGH}y`] } }), /body\.data\.note\[0\]/);
    expectRefused(await hub.call('POST', '/channels/plans/messages', bob, { body: 'fine', data: { [`k${LONE_LOW}`]: 1 } }), /a key/);
    // Well-formed astral characters (a surrogate pair) are fine.
    const ok = await hub.call('POST', '/channels/plans/messages', bob, { body: 'a whole emoji 😀', title: 'ok 😀' });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    const ledger = await verified('plans');
    expect(ledger.turns.map((t: { body: string }) => t.body)).to.include('a whole emoji 😀');
    expect(JSON.stringify(ledger)).to.not.include('\ufffd');
  });

  it("refuses a lone surrogate in a seat's about, and commons keeps verifying", async () => {
    expectRefused(await hub.call('POST', '/agents', hub.kernel.adminToken, { id: 'cyd', about: `about me ${LONE_HIGH}` }), /body\.about/);
    expect((await hub.call('GET', '/agents', ada)).body.map((a: { id: string }) => a.id)).to.not.include('cyd');
    await hub.seat('dee', { about: 'plain about 😀' });
    await verified('commons');
  });

  it('refuses it in other stored text too: a channel name', async () => {
    expectRefused(await hub.call('POST', '/channels', ada, { name: `room${LONE_LOW}` }), /body\.name/);
  });

  it("refuses it in the socket's post frame with an error frame, and stores nothing", async () => {
    const base = (await hub.kernel.listen()).url.replace(/^http/, 'ws');
    const client = await SocketClient.open(`${base}/hub/ws?token=${encodeURIComponent(bob)}`);
    try {
      const before = (await verified('plans')).count as number;
      client.send({ type: 'post', channel: 'plans', body: `socket ${LONE_HIGH}` });
      client.send({ type: 'post', channel: 'plans', body: 'socket fine', data: { deep: { x: `y${LONE_LOW}` } } });
      client.send({ type: 'post', channel: 'plans', body: 'socket fine 😀' });
      const replies = () => [...client.ofType('error'), ...client.ofType('posted')];
      await client.until(() => replies().length >= 3, 'three replies');
      const errors = client.ofType('error');
      expect(errors).to.have.length(2);
      for (const e of errors) {
        expect(e.status).to.equal(400);
        expect(e.detail).to.match(/lone UTF-16 surrogate/);
      }
      expect(client.ofType('posted')).to.have.length(1);
      expect((await verified('plans')).count).to.equal(before + 1);
    } finally {
      client.ws.terminate();
    }
  });
});
