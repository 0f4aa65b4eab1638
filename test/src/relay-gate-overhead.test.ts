import { expect } from 'chai';
import { RelayUpstream } from './helpers/relay-upstream.js';
import { post, startRelay, type RelayKernel } from './helpers/relay-hosted.js';

/**
 * The "overhead header on every response": every answer under the relay's `/v1`, the gate's
 * refusals and unmatched paths included, carries `x-relay-overhead-ms` (a non-negative number).
 */
describe('relay gate: x-relay-overhead-ms on every answer', function () {
  this.timeout(60_000);
  const upstream = new RelayUpstream();
  let relay: RelayKernel;
  before(async () => {
    upstream.account('key-a', { models: ['gpt-test'] });
    await upstream.start();
    relay = await startRelay([{ apiKey: 'key-a', baseUrl: upstream.url }], { cli: { enabled: false }, gate: { rateLimitBurst: 6, rateLimitPerMinute: 1 } });
  });
  after(async () => {
    await relay?.kernel.stop();
    await upstream.stop();
  });

  const overheadOf = (headers: Headers) => {
    const value = headers.get('x-relay-overhead-ms');
    expect(value, 'x-relay-overhead-ms').to.be.a('string');
    expect(Number(value)).to.be.at.least(0);
  };

  it('on a refusal without a token, a route, an unmatched path, a text route and a rate-limited call', async () => {
    const anonymous = await fetch(`${relay.url}/v1/models`);
    expect(anonymous.status).to.equal(401);
    overheadOf(anonymous.headers);
    const models = await fetch(`${relay.url}/v1/models`, { headers: { authorization: `Bearer ${relay.token}` } });
    expect(models.status).to.equal(200);
    overheadOf(models.headers);
    const unmatched = await fetch(`${relay.url}/v1/no-such-route`, { headers: { authorization: `Bearer ${relay.token}` } });
    expect(unmatched.status).to.equal(404);
    overheadOf(unmatched.headers);
    const chat = await post(relay, '/chat/completions', { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.status).to.equal(200);
    overheadOf(chat.headers);
    let limited: Response | undefined;
    for (let i = 0; i < 10 && limited?.status !== 429; i++) limited = await fetch(`${relay.url}/v1/models`, { headers: { authorization: `Bearer ${relay.token}` } });
    expect(limited!.status).to.equal(429);
    overheadOf(limited!.headers);
  });
});
