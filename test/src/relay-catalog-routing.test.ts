import { expect } from 'chai';
import type { Clock } from '@keel/plugin-sdk';
import { RelayFailure, type TrafficRecord } from '@keel/plugin-relay';
import { RelayModelCatalog, type CatalogSettings } from '../../plugins/relay/dist/catalog/model-catalog.js';
import { configuredAccounts } from '../../plugins/relay/dist/catalog/configured-accounts.js';
import { configuredCliModels } from '../../plugins/relay/dist/catalog/configured-cli-models.js';
import { cliClientModels, type CliModelLister } from '../../plugins/relay/dist/catalog/cli-client-models.js';
import { RelayUpstream } from './helpers/relay-upstream.js';

/**
 * `ModelCatalog.route` (reference §1.3, seed §C.7) against a real scripted upstream: the client
 * models by either prefix, the prefix refusals, hosted ids from the live catalog or extras, the
 * 422 with near ids for anything else, and the traffic records. (The text routes that call it
 * answer these refusals through HTTP; their tests live with them.)
 */
describe('relay catalog: model routing', function () {
  this.timeout(60_000);
  const upstream = new RelayUpstream();
  const clock: Clock = { now: () => new Date(), nowMs: () => Date.now() };
  let url = '';
  let records: TrafficRecord[] = [];
  const traffic = { write: (r: TrafficRecord) => void records.push(r), streamLines: false };
  const catalogOf = (settings: Partial<CatalogSettings> = {}, cli: { enabled?: boolean; models?: string[] } = {}) => new RelayModelCatalog(
    { hostedEnabled: true, ttlSeconds: 300, extraModels: ['gpt-unlisted'], timeoutMs: 10_000, ...settings },
    configuredAccounts([{ baseUrl: url, apiKey: 'key-a', slug: 'alice' }, { baseUrl: url, apiKey: 'key-b', slug: 'bob' }]),
    configuredCliModels({ enabled: cli.enabled ?? true, command: null, models: cli.models ?? ['keel-tiny-chat'], timeoutSeconds: 600, maxConcurrentRequests: 2, stripApiKeyEnv: true, maxSchemaBytes: 200_000 }),
    traffic,
    clock,
  );
  const refusal = async (work: Promise<unknown>) => {
    try {
      await work;
    } catch (err) {
      expect(err).to.be.instanceOf(RelayFailure);
      return err as RelayFailure;
    }
    throw new Error('expected a refusal');
  };

  before(async () => {
    url = await upstream.start();
    upstream.account('key-a', { models: ['gpt-4.1', 'gpt-4.1-mini', 'gpt-5'] });
    upstream.account('key-b', { models: ['gpt-5', 'o3'] });
  });
  beforeEach(() => {
    records = [];
  });
  after(() => upstream.stop());

  it('routes a listed hosted id and a configured extra id to hosted, with a provider_resolution record', async () => {
    const catalog = catalogOf();
    expect(await catalog.route('gpt-4.1', 'req_1')).to.deep.equal({ provider: 'hosted', upstreamModel: 'gpt-4.1' });
    expect(await catalog.route('o3', 'req_2')).to.deep.equal({ provider: 'hosted', upstreamModel: 'o3' });
    expect(await catalog.route('gpt-unlisted', 'req_3')).to.deep.equal({ provider: 'hosted', upstreamModel: 'gpt-unlisted' });
    expect(records.filter((r) => r.phase === 'provider_resolution')).to.deep.equal([
      { phase: 'provider_resolution', request_id: 'req_1', provider: 'hosted', model: 'gpt-4.1' },
      { phase: 'provider_resolution', request_id: 'req_2', provider: 'hosted', model: 'o3' },
      { phase: 'provider_resolution', request_id: 'req_3', provider: 'hosted', model: 'gpt-unlisted' },
    ]);
  });

  it('refuses a hosted id in neither the catalog nor the extras with 422 and the near ids', async () => {
    const failure = await refusal(catalogOf().route('gpt-4.2-mini', 'req_x'));
    expect(failure.status).to.equal(422);
    expect(failure.error).to.include({ type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
    expect(failure.error.suggestions).to.deep.equal(['gpt-4.1-mini']);
    expect(failure.error.message).to.match(/`gpt-4\.2-mini` is in neither the hosted catalog nor hosted\.extraModels\. Did you mean `gpt-4\.1-mini`\? GET \/v1\/models lists/);
    const several = await refusal(catalogOf().route('gpt-4', 'req_z'));
    expect(several.error.suggestions).to.deep.equal(['gpt-5', 'gpt-4.1', 'gpt-4.1-mini']);
    const far = await refusal(catalogOf().route('completely-different-name', 'req_y'));
    expect(far.error.suggestions).to.deep.equal([]);
    expect(records.some((r) => r.phase === 'provider_resolution')).to.equal(false);
  });

  it('routes a client model by either prefix to cli with the text after the prefix', async () => {
    const catalog = catalogOf();
    expect(await catalog.route('cli:keel-tiny-chat', 'r')).to.deep.equal({ provider: 'cli', upstreamModel: 'keel-tiny-chat' });
    expect(await catalog.route('cli-keel-tiny-chat', 'r')).to.deep.equal({ provider: 'cli', upstreamModel: 'keel-tiny-chat' });
  });

  it('refuses an unknown prefixed id with 422 unsupported_for_provider, and any prefixed id when the client runtime is off', async () => {
    const unknown = await refusal(catalogOf().route('cli:nope', 'r'));
    expect(unknown.status).to.equal(422);
    expect(unknown.error.code).to.equal('unsupported_for_provider');
    expect(unknown.error.message).to.match(/Unknown local client model `cli:nope`\. Configure it under cli\.models/);
    const off = await refusal(catalogOf({}, { enabled: false }).route('cli:keel-tiny-chat', 'r'));
    expect(off.status).to.equal(422);
    expect(off.error.code).to.equal('unsupported_for_provider');
    expect(off.error.message).to.match(/runtime is disabled/);
  });

  it('refuses a hosted id with 422 when the hosted runtime is off', async () => {
    const failure = await refusal(catalogOf({ hostedEnabled: false }).route('gpt-5', 'r'));
    expect(failure.status).to.equal(422);
    expect(failure.error.message).to.match(/Unknown model `gpt-5` and the hosted runtime is disabled/);
  });

  it('lets a hosted id through when no catalog can be read (the upstream stays the authority)', async () => {
    for (const key of ['key-a', 'key-b']) upstream.modelsAnswer(key, { failure: { status: 500, error: { message: 'down', type: 'server_error', code: null } } });
    try {
      expect(await catalogOf().route('gpt-anything', 'r')).to.deep.equal({ provider: 'hosted', upstreamModel: 'gpt-anything' });
    } finally {
      for (const key of ['key-a', 'key-b']) upstream.modelsAnswer(key, { failure: null });
    }
  });

  it('writes a provider_models_cache record per account lookup: miss, then hit, refresh, and disabled at TTL 0', async () => {
    const catalog = catalogOf();
    await catalog.list(false, 'req_a');
    await catalog.list(false, 'req_b');
    await catalog.list(true, 'req_c');
    const cache = records.filter((r) => r.phase === 'provider_models_cache');
    expect(cache.map((r) => [r.request_id, r.account, r.cache])).to.deep.equal([
      ['req_a', 'alice', 'miss'], ['req_a', 'bob', 'miss'],
      ['req_b', 'alice', 'hit'], ['req_b', 'bob', 'hit'],
      ['req_c', 'alice', 'refresh'], ['req_c', 'bob', 'refresh'],
    ]);
    expect(cache[2]).to.include({ provider: 'hosted', ttl_seconds: 300, cached_model_count: 3 });
    expect(cache[2]!.expires_in_seconds).to.be.a('number').within(0, 300);
    records = [];
    await catalogOf({ ttlSeconds: 0 }).list(false, 'req_d');
    expect(records.filter((r) => r.phase === 'provider_models_cache').map((r) => r.cache)).to.deep.equal(['disabled', 'disabled']);
  });

  it('names the accounts whose catalog lists a model (for routing to accounts that serve it)', async () => {
    const catalog = catalogOf();
    expect(await catalog.accountsServing('gpt-5', 'r')).to.deep.equal(['alice', 'bob']);
    expect(await catalog.accountsServing('o3', 'r')).to.deep.equal(['bob']);
    expect(await catalog.accountsServing('gpt-unlisted', 'r')).to.deep.equal(['alice', 'bob']);
    expect(await catalog.accountsServing('nope', 'r')).to.deep.equal([]);
  });
});

describe('relay catalog: the local client lane\'s models', function () {
  this.timeout(30_000);
  const clock: Clock = { now: () => new Date(), nowMs: () => Date.now() };
  const cliConfig = (models: string[]) => ({ enabled: true, command: null, models, timeoutSeconds: 600, maxConcurrentRequests: 2, stripApiKeyEnv: true, maxSchemaBytes: 200_000 });
  const catalogWith = (lister: CliModelLister, models: string[]) => new RelayModelCatalog(
    { hostedEnabled: false, ttlSeconds: 300, extraModels: [], timeoutMs: 1000 },
    configuredAccounts([]),
    cliClientModels(lister, cliConfig(models)),
    { write: () => undefined, streamLines: false },
    clock,
  );

  it('lists discovered names as cli_catalog and configured ones as configured, passing refresh through', async () => {
    const refreshes: Array<boolean | undefined> = [];
    const lister: CliModelLister = { models: async ({ refresh }) => (refreshes.push(refresh), ['cli:keel-tiny-chat', 'cli:extra']), modelsSource: () => ({ source: 'local_client_catalog' }) };
    const records = await catalogWith(lister, ['extra']).list(true, 'r');
    expect(records.map((r) => [r.id, r.relay.discovery_source, r.relay.upstream_model])).to.deep.equal([['cli:keel-tiny-chat', 'cli_catalog', 'keel-tiny-chat'], ['cli:extra', 'configured', 'extra']]);
    expect(refreshes).to.deep.equal([true]);
    expect(await catalogWith(lister, []).route('cli-keel-tiny-chat', 'r')).to.deep.equal({ provider: 'cli', upstreamModel: 'keel-tiny-chat' });
  });

  it('marks every name configured when discovery failed', async () => {
    const lister: CliModelLister = { models: async () => ['cli:keel-tiny-chat'], modelsSource: () => ({ source: 'configured' }) };
    expect((await catalogWith(lister, ['keel-tiny-chat']).list(false, 'r'))[0]!.relay.discovery_source).to.equal('configured');
  });
});
