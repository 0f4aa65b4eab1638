import { expect } from 'chai';
import { RelayUpstream } from './helpers/relay-upstream.js';
import { startRelay, type RelayKernel } from './helpers/relay-hosted.js';

type Json = Record<string, unknown>;

/** Reference §1.7 / seed §C.2: the status reports the hosted model cache (MODELS_CACHE) beside the accounts. */
describe('relay review: the status\'s models_cache', function () {
  this.timeout(60_000);
  let upstream: RelayUpstream;
  const relays: RelayKernel[] = [];

  before(async () => {
    upstream = new RelayUpstream();
    upstream.account('key-a', { models: ['gpt-test', 'gpt-other'] });
    await upstream.start();
  });
  after(async () => {
    for (const relay of relays) await relay.kernel.stop();
    await upstream?.stop();
  });

  const get = async (relay: RelayKernel, route: string): Promise<Json> => {
    const res = await fetch(`${relay.url}/v1${route}`, { headers: { authorization: `Bearer ${relay.token}` } });
    expect(res.status, route).to.equal(200);
    return (await res.json()) as Json;
  };
  const modelsCache = async (relay: RelayKernel) => ((await get(relay, '/relay/status')).providers as { hosted: { models_cache: Json } }).hosted.models_cache;

  it('is empty before a catalog was read, then fresh with its model count and expiry', async () => {
    const relay = await startRelay([{ apiKey: 'key-a', baseUrl: upstream.url }]);
    relays.push(relay);
    expect(await modelsCache(relay)).to.deep.equal({ configured: true, enabled: true, ttl_seconds: 300, state: 'empty', age_seconds: null, expires_in_seconds: null, cached_model_count: 0 });
    await get(relay, '/models');
    const fresh = await modelsCache(relay);
    expect(fresh).to.include({ state: 'fresh', cached_model_count: 2, ttl_seconds: 300 });
    expect(fresh.expires_in_seconds).to.be.within(0, 300);
    expect(fresh.age_seconds).to.be.at.least(0);
  });

  it('says disabled at hosted.modelsCacheTtlSeconds 0', async () => {
    const relay = await startRelay([{ apiKey: 'key-a', baseUrl: upstream.url }], { hosted: { modelsCacheTtlSeconds: 0 } });
    relays.push(relay);
    await get(relay, '/models');
    expect(await modelsCache(relay)).to.include({ enabled: false, state: 'disabled', cached_model_count: 0 });
  });
});
