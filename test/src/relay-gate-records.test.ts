/**
 * The gate's traffic records (reference §5.3) in the relay's traffic log: `endpoint_security_ready`
 * at start, `endpoint_auth_failed` per bad or missing token (fingerprint, never the token),
 * `endpoint_rejected` per gate 429; the unpublished routes' inbound/outbound records under the
 * gate's request id; monitoring routes write none.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { relayPlugin } from '@keel/plugin-relay';
import { relayTokenOf } from './helpers/relay-gate.js';
import { trafficRecords } from './helpers/relay-hosted.js';
import { until } from './helpers/until.js';

type TrafficRecord = Record<string, unknown>;

describe('relay gate: traffic records', function () {
  this.timeout(60_000);
  let kernel: TestKernel;
  let token: string;
  const records = () => trafficRecords({ kernel, url: '', token });
  const recordsWhere = (what: string, ok: (r: TrafficRecord[]) => boolean) => until(records, { what, ok, deadline: 30_000 });

  before(async () => {
    kernel = await createTestKernel({ plugins: [{ plugin: relayPlugin, config: { gate: { failedAuthMaxAttempts: 2, rateLimitBurst: 3, rateLimitPerMinute: 1 } } }], config: { server: { logLevel: 'silent' } } });
    token = relayTokenOf(kernel);
  });
  after(() => kernel?.stop());

  it('writes endpoint_security_ready at start with the gate settings and bearer_token_created', async () => {
    const all = await recordsWhere('endpoint_security_ready', (r) => r.some((x) => x.phase === 'endpoint_security_ready'));
    const ready = all.find((x) => x.phase === 'endpoint_security_ready')!;
    expect(ready).to.include({ request_id: 'startup', require_bearer_auth: true, bearer_token_created: true, rate_limit_burst: 3, failed_auth_max_attempts: 2 });
  });

  it('writes endpoint_auth_failed for each bad token with its fingerprint and the path without the query, then blocked; never the token itself', async () => {
    const from = '10.9.0.1';
    await kernel.inject({ url: '/v1/relay/status?secret=shh', token: 'wrong-token-1', remoteAddress: from });
    await kernel.inject({ url: '/v1/relay/status', token: 'wrong-token-2', remoteAddress: from });
    await kernel.inject({ url: '/v1/relay/status', token, remoteAddress: from });
    const all = await recordsWhere('auth failures and the block', (r) => r.filter((x) => x.client_ip === from).length >= 3);
    const failed = all.filter((x) => x.phase === 'endpoint_auth_failed' && x.client_ip === from);
    expect(failed).to.have.length(2);
    expect(failed[0]).to.include({ method: 'GET', path: '/v1/relay/status', blocked: false, block_seconds: 0 });
    expect(failed[0]!.token_fingerprint).to.equal(createHash('sha256').update('wrong-token-1').digest('hex').slice(0, 12));
    expect(failed[0]!.request_id).to.match(/^req_[0-9a-f]{32}$/);
    expect(failed[1]).to.include({ blocked: true, block_seconds: 900 });
    const rejected = all.find((x) => x.phase === 'endpoint_rejected' && x.client_ip === from)!;
    expect(rejected).to.include({ reason: 'auth_block_active', status_code: 429 });
    expect(rejected.retry_after_seconds).to.be.within(1, 900);
    const text = JSON.stringify(all);
    expect(text).not.to.contain('wrong-token-1');
    expect(text).not.to.contain(token);
    expect(text).not.to.contain('secret=shh');
  });

  it('writes endpoint_rejected request_rate_limit when the bucket is empty', async () => {
    const from = '10.9.0.2';
    for (let i = 0; i < 4; i++) await kernel.inject({ url: '/v1/relay/status', token, remoteAddress: from });
    const all = await recordsWhere('a rate-limit rejection', (r) => r.some((x) => x.phase === 'endpoint_rejected' && x.client_ip === from));
    expect(all.find((x) => x.phase === 'endpoint_rejected' && x.client_ip === from)).to.include({ reason: 'request_rate_limit', status_code: 429, retry_after_seconds: 1 });
  });

  it('logs an unpublished route\'s inbound request and 501 answer under the gate\'s request id; monitoring routes write no inbound record', async () => {
    const from = '10.9.0.3';
    await kernel.inject({ url: '/v1/relay/status', token, remoteAddress: from });
    await kernel.inject({ method: 'POST', url: '/v1/embeddings', token, payload: { model: 'm', input: 'hello' }, remoteAddress: from });
    const all = await recordsWhere('the 501 exchange', (r) => r.some((x) => x.phase === 'outbound_response' && x.status_code === 501));
    const inbound = all.filter((x) => x.phase === 'inbound_request' && x.client_ip === from);
    expect(inbound).to.have.length(1);
    expect(inbound[0]).to.include({ method: 'POST', path: '/v1/embeddings' });
    expect(inbound[0]!.request_id).to.match(/^req_[0-9a-f]{32}$/);
    expect((inbound[0]!.body as { kind: string }).kind).to.equal('json');
    expect(all.find((x) => x.phase === 'outbound_response' && x.request_id === inbound[0]!.request_id)).to.include({ status_code: 501 });
  });
});
