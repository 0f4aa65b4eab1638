import { expect } from 'chai';
import { core, type Clock } from '@keel/plugin-sdk';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { relayPlugin } from '@keel/plugin-relay';
import { OPEN_GATE, relayTokenOf } from './helpers/relay-gate.js';
import { RelayUpstream } from './helpers/relay-upstream.js';

/**
 * `GET /v1/models` of the relay (seed §C.4, reference §1.4) through HTTP, against two scripted
 * upstream accounts with different catalogs: the order, every field of the `relay` block,
 * `account_availability`, extras only on a read catalog, the per-account caches (TTL, refresh,
 * single flight, TTL 0) and the failures.
 */

interface ModelRecord {
  id: string;
  object: string;
  created: number;
  owned_by: string;
  relay: Record<string, unknown> & { account_availability: { supported: number; total: number } | null; discovery_source: string };
}

class ManualClock implements Clock {
  ms = Date.parse('2026-11-25T00:00:00Z');
  now() {
    return new Date(this.ms);
  }
  nowMs() {
    return this.ms;
  }
}

function relayKernel(relay: Record<string, unknown>, clock = new ManualClock()) {
  return createTestKernel({ plugins: [{ plugin: relayPlugin, config: { gate: OPEN_GATE, ...relay } }], overrides: [[core.clock, clock]] });
}

const accounts = (url: string) => [
  { baseUrl: url, apiKey: 'key-a', email: 'alice@example.com' },
  { baseUrl: url, apiKey: 'key-b', slug: 'bob' },
];

const HOSTED_ROUTES = { responses: true, chat_completions: true, completions: true, files: true, conversations: true, subscription_status: true };

describe('relay catalog: GET /v1/models', function () {
  this.timeout(120_000);
  const upstream = new RelayUpstream();
  const clock = new ManualClock();
  let k: TestKernel;
  const models = async (query = '') => {
    const res = await k.inject({ url: `/v1/models${query}`, token: relayTokenOf(k) });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<{ object: string; data: ModelRecord[] }>();
  };

  before(async () => {
    const url = await upstream.start();
    upstream.account('key-a', { models: ['gpt-alpha', 'gpt-beta', 'gpt-gamma'] });
    upstream.account('key-b', { models: ['gpt-delta', 'gpt-beta'] });
    upstream.describeModel('key-a', 'gpt-alpha', { display_name: 'GPT Alpha', description: 'The first model.', visibility: 'list', created: 1700000000 });
    k = await relayKernel({ hosted: { accounts: accounts(url), extraModels: ['gpt-extra', 'gpt-beta'], modelsCacheTtlSeconds: 300 }, cli: { models: ['keel-tiny-chat'] } }, clock);
  });
  after(async () => {
    await k?.stop();
    await upstream.stop();
  });

  it('refuses a caller without a token', async () => {
    const res = await k.inject({ url: '/v1/models' });
    expect(res.statusCode).to.equal(401);
    expect(res.json<{ error: { message: string } }>().error.message).to.be.a('string');
  });

  it('lists hosted ids in catalog order (first account first), then extras not already listed, then the client models', async () => {
    const list = await models();
    expect(list.object).to.equal('list');
    expect(list.data.map((m) => m.id)).to.deep.equal(['gpt-alpha', 'gpt-beta', 'gpt-gamma', 'gpt-delta', 'gpt-extra', 'cli:keel-tiny-chat']);
  });

  it('fills every field of a hosted record, taking display name, description, visibility and created from the catalog entry', async () => {
    const alpha = (await models()).data.find((m) => m.id === 'gpt-alpha');
    expect(alpha).to.deep.equal({
      id: 'gpt-alpha',
      object: 'model',
      created: 1700000000,
      owned_by: 'relay-hosted-subscription',
      relay: {
        provider: 'hosted',
        upstream_model: 'gpt-alpha',
        capabilities: { routes: HOSTED_ROUTES, stateful_conversations: true },
        reasoning: { parameter: 'reasoning_effort', modes: ['none', 'low', 'medium', 'high', 'xhigh'], default: 'none' },
        structured_output: { parameter: 'response_format', types: ['json_schema'] },
        discovery_source: 'upstream_catalog',
        resolved_model: 'gpt-alpha',
        display_name: 'GPT Alpha',
        account_availability: { supported: 1, total: 2 },
        catalog_visibility: 'list',
        description: 'The first model.',
      },
    });
    const gamma = (await models()).data.find((m) => m.id === 'gpt-gamma')!;
    expect(gamma.relay).to.include({ display_name: 'gpt-gamma', description: null, catalog_visibility: 'listed', discovery_source: 'upstream_catalog' });
    expect(gamma.created).to.equal(0);
  });

  it('counts account_availability over the accounts whose catalog lists the id', async () => {
    const byId = new Map((await models()).data.map((m) => [m.id, m.relay.account_availability]));
    expect(byId.get('gpt-alpha')).to.deep.equal({ supported: 1, total: 2 });
    expect(byId.get('gpt-beta')).to.deep.equal({ supported: 2, total: 2 });
    expect(byId.get('gpt-delta')).to.deep.equal({ supported: 1, total: 2 });
  });

  it('marks a configured extra id as configured and unlisted, served by every account whose catalog was read', async () => {
    const extra = (await models()).data.find((m) => m.id === 'gpt-extra')!;
    expect(extra.relay).to.deep.include({ provider: 'hosted', discovery_source: 'configured', catalog_visibility: 'unlisted', upstream_model: 'gpt-extra', resolved_model: 'gpt-extra', account_availability: { supported: 2, total: 2 }, description: null });
  });

  it('fills every field of a local client record: text routes only, stateless, its own efforts and formats', async () => {
    const cli = (await models()).data.find((m) => m.id === 'cli:keel-tiny-chat');
    expect(cli).to.deep.equal({
      id: 'cli:keel-tiny-chat',
      object: 'model',
      created: 0,
      owned_by: 'relay-cli-subscription',
      relay: {
        provider: 'cli',
        upstream_model: 'keel-tiny-chat',
        capabilities: { routes: { responses: false, chat_completions: true, completions: true, files: false, conversations: false, subscription_status: false }, stateful_conversations: false },
        reasoning: { parameter: 'reasoning_effort', modes: ['low', 'medium', 'high', 'xhigh', 'max'], default: null },
        structured_output: { parameter: 'response_format', types: ['json_schema', 'json_object'] },
        discovery_source: 'configured',
        resolved_model: 'keel-tiny-chat',
        display_name: 'cli:keel-tiny-chat',
        account_availability: null,
        catalog_visibility: 'listed',
        description: null,
      },
    });
  });

  it('serves each account\'s catalog from its cache within the TTL, reads it again after, and refresh=true bypasses the cache', async () => {
    await models('?refresh=true');
    const a = upstream.catalogReads('key-a');
    const b = upstream.catalogReads('key-b');
    await models();
    await models();
    expect([upstream.catalogReads('key-a'), upstream.catalogReads('key-b')]).to.deep.equal([a, b]);
    clock.ms += 299_000;
    await models();
    expect([upstream.catalogReads('key-a'), upstream.catalogReads('key-b')]).to.deep.equal([a, b]);
    clock.ms += 2_000;
    await models();
    expect([upstream.catalogReads('key-a'), upstream.catalogReads('key-b')]).to.deep.equal([a + 1, b + 1]);
    await models('?refresh=true');
    expect([upstream.catalogReads('key-a'), upstream.catalogReads('key-b')]).to.deep.equal([a + 2, b + 2]);
  });

  it('shows a catalog change at once with refresh=true and only after the TTL without it', async () => {
    await models('?refresh=true');
    upstream.models('key-b', ['gpt-delta', 'gpt-beta', 'gpt-new']);
    expect((await models()).data.map((m) => m.id)).to.not.include('gpt-new');
    expect((await models('?refresh=true')).data.map((m) => m.id)).to.include('gpt-new');
    upstream.models('key-b', ['gpt-delta', 'gpt-beta']);
    await models('?refresh=true');
  });

  it('reads each catalog once for concurrent misses (single flight)', async () => {
    clock.ms += 400_000;
    upstream.modelsAnswer('key-a', { delayMs: 300 });
    upstream.modelsAnswer('key-b', { delayMs: 300 });
    const a = upstream.catalogReads('key-a');
    const b = upstream.catalogReads('key-b');
    try {
      const lists = await Promise.all(Array.from({ length: 6 }, () => models()));
      for (const list of lists) expect(list.data).to.have.length(6);
    } finally {
      upstream.modelsAnswer('key-a', { delayMs: 0 });
      upstream.modelsAnswer('key-b', { delayMs: 0 });
    }
    expect([upstream.catalogReads('key-a'), upstream.catalogReads('key-b')]).to.deep.equal([a + 1, b + 1]);
  });

  it('lists the accounts that answered when one account\'s catalog fails, counting the failed one in total', async () => {
    upstream.modelsAnswer('key-b', { failure: { status: 500, error: { message: 'catalog down', type: 'server_error', code: null } } });
    try {
      const list = await models('?refresh=true');
      expect(list.data.map((m) => m.id)).to.deep.equal(['gpt-alpha', 'gpt-beta', 'gpt-gamma', 'gpt-extra', 'cli:keel-tiny-chat']);
      expect(list.data.find((m) => m.id === 'gpt-beta')!.relay.account_availability).to.deep.equal({ supported: 1, total: 2 });
      expect(list.data.find((m) => m.id === 'gpt-extra')!.relay.account_availability).to.deep.equal({ supported: 1, total: 2 });
    } finally {
      upstream.modelsAnswer('key-b', { failure: null });
    }
  });

  it('answers 200 with only the client models, without extras, when every hosted catalog fails', async () => {
    for (const key of ['key-a', 'key-b']) upstream.modelsAnswer(key, { failure: { status: 503, error: { message: 'overloaded', type: 'server_error', code: 'overloaded' } } });
    try {
      const list = await models('?refresh=true');
      expect(list.data.map((m) => m.id)).to.deep.equal(['cli:keel-tiny-chat']);
    } finally {
      for (const key of ['key-a', 'key-b']) upstream.modelsAnswer(key, { failure: null });
    }
  });
});

describe('relay catalog: GET /v1/models without client models', function () {
  this.timeout(120_000);
  const upstream = new RelayUpstream();
  let k: TestKernel;
  before(async () => {
    const url = await upstream.start();
    upstream.account('key-a', { models: ['gpt-alpha'] });
    upstream.account('key-b', { models: ['gpt-beta'] });
    k = await relayKernel({ hosted: { accounts: accounts(url), extraModels: ['gpt-extra'], modelsCacheTtlSeconds: 0 }, cli: { enabled: false, models: ['ignored'] } });
  });
  after(async () => {
    await k?.stop();
    await upstream.stop();
  });
  const get = () => k.inject({ url: '/v1/models', token: relayTokenOf(k) });

  it('reads every catalog on every request when the TTL is 0', async () => {
    const before = upstream.catalogReads();
    for (let i = 0; i < 3; i++) expect((await get()).statusCode).to.equal(200);
    expect(upstream.catalogReads() - before).to.equal(6);
    expect((await get()).json<{ data: ModelRecord[] }>().data.map((m) => m.id)).to.deep.equal(['gpt-alpha', 'gpt-beta', 'gpt-extra']);
  });

  it('answers the upstream\'s error with its real status and object when nothing else can be listed, never the extras', async () => {
    const error = { message: 'The server is overloaded.', type: 'server_error', code: 'overloaded' };
    for (const key of ['key-a', 'key-b']) upstream.modelsAnswer(key, { failure: { status: 529, error } });
    try {
      const res = await get();
      expect(res.statusCode).to.equal(529);
      expect(res.json()).to.deep.equal({ error, detail: error.message });
    } finally {
      for (const key of ['key-a', 'key-b']) upstream.modelsAnswer(key, { failure: null });
    }
  });

  it('answers 503 upstream_auth_rejected when the upstream refuses the accounts\' keys (not the client\'s 401)', async () => {
    for (const key of ['key-a', 'key-b']) upstream.modelsAnswer(key, { failure: { status: 401, error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } } });
    try {
      const res = await get();
      expect(res.statusCode).to.equal(503);
      expect(res.headers['x-relay-upstream-auth']).to.equal('rejected');
      expect(res.json<{ error: { type: string; code: string; message: string } }>().error).to.include({ type: 'authentication_error', code: 'upstream_auth_rejected' });
    } finally {
      for (const key of ['key-a', 'key-b']) upstream.modelsAnswer(key, { failure: null });
    }
  });

  it('answers 502 when the upstream cannot be reached', async () => {
    const down = await relayKernel({ hosted: { accounts: [{ baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'x' }] }, cli: { enabled: false } });
    try {
      const res = await down.inject({ url: '/v1/models', token: relayTokenOf(down) });
      expect(res.statusCode).to.equal(502);
      expect(res.json<{ error: { code: string } }>().error.code).to.equal('upstream_unreachable');
    } finally {
      await down.stop();
    }
  });
});
