/**
 * Attack: secrets a client sends outside the Authorization header (an `x-api-key`/`api-key`
 * header, a `?api_key=`/`?token=` query parameter) must not reach the traffic log in clear.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { relayPlugin } from '@keel/plugin-relay';
import { relayTokenOf } from './helpers/relay-gate.js';
import { trafficRecords } from './helpers/relay-hosted.js';
import { until } from './helpers/until.js';

describe('relay attack: secrets outside Authorization stay out of the traffic log', function () {
  this.timeout(60_000);
  let kernel: TestKernel;
  let token: string;

  before(async () => {
    kernel = await createTestKernel({ plugins: [{ plugin: relayPlugin, config: {} }], config: { server: { logLevel: 'silent' } } });
    token = relayTokenOf(kernel);
  });
  after(() => kernel?.stop());

  it('redacts x-api-key, api-key and proxy-authorization headers and secret query parameters', async () => {
    await kernel.inject({ method: 'POST', url: '/v1/embeddings?api_key=query-secret-1&token=query-secret-2&key=query-secret-3&limit=5', payload: { model: 'm', input: 'x' }, token, remoteAddress: '10.8.0.1',
      headers: { 'x-api-key': 'header-secret-1', 'api-key': 'header-secret-2', 'proxy-authorization': 'Bearer header-secret-3' } });
    await kernel.inject({ url: '/v1/models', token: 'wrong', remoteAddress: '10.8.0.2', headers: { 'x-api-key': 'header-secret-4' } });
    const all = await until(() => trafficRecords({ kernel, url: '', token }), {
      what: 'the inbound record and the auth failure', deadline: 30_000,
      ok: (r) => r.some((x) => x.phase === 'inbound_request' && x.client_ip === '10.8.0.1') && r.some((x) => x.phase === 'endpoint_auth_failed' && x.client_ip === '10.8.0.2'),
    });
    const text = JSON.stringify(all);
    for (const secret of ['query-secret-1', 'query-secret-2', 'query-secret-3', 'header-secret-1', 'header-secret-2', 'header-secret-3', 'header-secret-4']) {
      expect(text, secret).not.to.contain(secret);
    }
    const inbound = all.find((x) => x.phase === 'inbound_request' && x.client_ip === '10.8.0.1')!;
    expect(String(inbound.query)).to.contain('limit=5');
  });
});
