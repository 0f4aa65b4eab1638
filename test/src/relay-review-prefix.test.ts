import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { relayPlugin } from '@keel/plugin-relay';
import { relayTokenOf } from './helpers/relay-gate.js';

/**
 * The README's embedding promise: mounted under another prefix (beside a gateway's `/v1`), the relay
 * serves its routes there, the gate guards them, and the monitoring rules follow the prefix.
 */
describe('relay review: mounted under another prefix', function () {
  this.timeout(60_000);
  let kernel: TestKernel;
  let url = '';
  let token = '';

  before(async () => {
    kernel = await createTestKernel({ plugins: [{ plugin: relayPlugin, prefix: '/relay-api', config: { hosted: { enabled: false }, cli: { enabled: false } } }] });
    url = (await kernel.listen()).url;
    token = relayTokenOf(kernel);
  });
  after(async () => {
    await kernel?.stop();
  });

  const get = async (route: string, auth = true) => {
    const res = await fetch(`${url}/relay-api${route}`, { headers: auth ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };

  it('guards its routes and unmatched paths there, counts real requests and never the status pulse', async () => {
    expect((await get('/models', false)).status).to.equal(401);
    expect((await get('/no-such-route', false)).status).to.equal(401);
    const before = (await get('/relay/status?activity_only=true')).json;
    expect(Object.keys(before)).to.deep.equal(['requests_total']);
    const models = await get('/models');
    expect(models.status, JSON.stringify(models.json)).to.equal(200);
    await get('/relay/status');
    await get('/relay/status?activity_only=true');
    expect((await get('/relay/status?activity_only=true')).json.requests_total).to.equal(Number(before.requests_total) + 1);
  });
});
