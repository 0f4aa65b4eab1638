/**
 * `GET /v1/relay/status` (reference §1.7), `requests_total` (monitoring routes not counted),
 * `activity_only`, and the unpublished routes answering 501 `unsupported_error` (reference §1.13).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { relayPlugin } from '@keel/plugin-relay';
import { relayTokenOf } from './helpers/relay-gate.js';
import { RelayUpstream } from './helpers/relay-upstream.js';

const UNSUPPORTED = 'This subscription-backed server does not expose a verified upstream implementation for this route yet.';

describe('relay status route and unpublished routes', function () {
  this.timeout(60_000);
  let kernel: TestKernel;
  let token: string;
  const total = async () => (await kernel.inject({ url: '/v1/relay/status?activity_only=true', token })).json<{ requests_total: number }>().requests_total;

  before(async () => {
    kernel = await createTestKernel({ plugins: [{ plugin: relayPlugin, config: { gate: { rateLimitBurst: 1000, rateLimitPerMinute: 1000 } } }], config: { server: { logLevel: 'silent' } } });
    token = readFileSync(path.join(kernel.dataDir, 'plugins', 'relay', 'relay-token'), 'utf8').trim();
  });
  after(() => kernel?.stop());

  it('answers the reference shape: object, app_name, version, requests_total, ready, providers {hosted, cli}, relay, security with the caller\'s client block, storage, supported_routes', async () => {
    const res = await kernel.inject({ url: '/v1/relay/status', token, remoteAddress: '10.2.2.2' });
    expect(res.statusCode, res.body).to.equal(200);
    const body = res.json<{
      object: string; version: string; requests_total: number; ready: Record<string, unknown>; providers: Record<string, unknown>;
      relay: { token: { present: boolean; source: string; fingerprint: string } };
      security: Record<string, unknown> & { client: Record<string, unknown> }; supported_routes: string[];
    }>();
    expect(body).to.include.keys('object', 'app_name', 'version', 'requests_total', 'ready', 'providers', 'relay', 'security', 'storage', 'supported_routes');
    expect(body.object).to.equal('relay.status');
    expect(body.version).to.equal(relayPlugin.version);
    expect(body.ready).to.include.keys('upstream_auth', 'relay_token', 'any_provider', 'providers');
    expect(body.ready.relay_token).to.equal(true);
    expect(body.providers).to.have.keys('hosted', 'cli');
    expect(body.relay.token).to.include({ present: true, source: 'file' });
    expect(body.relay.token.fingerprint).to.match(/^[0-9a-f]{12}$/);
    expect(JSON.stringify(body)).not.to.contain(token);
    expect(body.security).to.include({ require_bearer_auth: true, bearer_token_present: true, rate_limit_per_minute: 1000, rate_limit_burst: 1000, concurrent_requests_per_ip: 8, failed_auth_max_attempts: 8, trust_x_forwarded_for: false });
    expect(body.security.client).to.include({ ip: '10.2.2.2', active_requests: 1, failed_auth_attempts: 0, blocked_for_seconds: 0 });
    expect(body.security.client.allowance_remaining).to.be.a('number');
    expect(body.supported_routes).to.include('/v1/relay/status');
    expect(body.supported_routes).not.to.include('/v1/embeddings');
  });

  it('activity_only=true answers exactly {requests_total}; another value is a 400', async () => {
    const pulse = await kernel.inject({ url: '/v1/relay/status?activity_only=true', token });
    expect(pulse.json()).to.have.keys('requests_total');
    const bad = await kernel.inject({ url: '/v1/relay/status?activity_only=yes', token });
    expect(bad.statusCode).to.equal(400);
    expect(bad.json<{ error: { type: string } }>().error.type).to.equal('invalid_request_error');
  });

  it('counts real requests (unpublished and unmatched paths) in requests_total, never the monitoring routes or refused calls', async () => {
    const before = await total();
    await kernel.inject({ url: '/v1/relay/status', token });
    await kernel.inject({ url: '/v1/relay/status?activity_only=true', token });
    await kernel.inject({ url: '/v1/subscription/status', token });
    await kernel.inject({ url: '/v1/account/rate_limits', token });
    await kernel.inject({ method: 'POST', url: '/v1/relay/accounts/refresh', token });
    await kernel.inject({ method: 'POST', url: '/v1/embeddings', token: 'wrong' });
    expect(await total()).to.equal(before);
    await kernel.inject({ method: 'POST', url: '/v1/embeddings', token, payload: {} });
    await kernel.inject({ url: '/v1/not-a-route', token });
    expect(await total()).to.equal(before + 2);
  });

  it('answers POST /v1/embeddings, /v1/images/{op}, /v1/audio/{op}, /v1/realtime/sessions with 501 unsupported_error and the reference sentence', async () => {
    for (const url of ['/v1/embeddings', '/v1/images/generations', '/v1/images/edits', '/v1/audio/speech', '/v1/audio/transcriptions', '/v1/realtime/sessions']) {
      const res = await kernel.inject({ method: 'POST', url, token, payload: { model: 'x', input: 'y' } });
      expect(res.statusCode, url).to.equal(501);
      const body = res.json<{ error: { message: string; type: string; code: null }; detail: string }>();
      expect(body.error).to.include({ message: UNSUPPORTED, type: 'unsupported_error', code: null });
      expect(body.detail).to.equal(UNSUPPORTED);
    }
  });

  it('refuses the unpublished routes without the token (401 before 501)', async () => {
    const res = await kernel.inject({ method: 'POST', url: '/v1/embeddings', payload: {} });
    expect(res.statusCode).to.equal(401);
  });

  it('lists the relay token as the security scheme of its routes in /openapi.json', async () => {
    const doc = (await kernel.inject({ url: '/openapi.json' })).json<{ components: { securitySchemes: Record<string, unknown> }; paths: Record<string, Record<string, { security?: unknown[] }>> }>();
    expect(doc.components.securitySchemes.relayToken).to.include({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/v1/relay/status']!.get!.security).to.deep.equal([{ relayToken: [] }]);
  });
});

describe('relay status composed from the other parts', function () {
  this.timeout(60_000);
  const upstream = new RelayUpstream();
  let kernel: TestKernel;

  before(async () => {
    upstream.account('status-key', { models: ['gpt-test'] });
    await upstream.start();
    kernel = await createTestKernel({
      plugins: [{ plugin: relayPlugin, config: { hosted: { accounts: [{ slug: 'main', email: 'main@example.com', baseUrl: upstream.url, apiKey: 'status-key' }] }, cli: { enabled: false } } }],
      config: { server: { logLevel: 'silent' } },
    });
  });
  after(async () => {
    await kernel?.stop();
    await upstream.stop();
  });

  it('shows the pool\'s accounts under providers.hosted, the storage counts, the disabled cli, and hosted ready when an account is', async () => {
    const res = await kernel.inject({ url: '/v1/relay/status', token: relayTokenOf(kernel) });
    const body = res.json<{ ready: { providers: { hosted: boolean; cli: boolean }; any_provider: boolean }; providers: { hosted: { accounts: Array<{ slug: string }> }; cli: { enabled: boolean } }; storage: Record<string, number> }>();
    expect(body.providers.hosted.accounts.map((a) => a.slug)).to.deep.equal(['main']);
    expect(body.providers.cli.enabled).to.equal(false);
    expect(body.storage).to.include.keys('file_count', 'total_bytes', 'conversation_count');
    expect(body.ready.providers).to.deep.equal({ hosted: true, cli: false });
    expect(body.ready.any_provider).to.equal(true);
  });
});
