import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { relayPlugin } from '@keel/plugin-relay';
import { relayTokenOf } from './helpers/relay-gate.js';

/**
 * The defaults the seed names (seed 002 §C.8), read back through the relay's own routes on a relay
 * configured with nothing but the local client off (it would spawn a process): retries 3 waiting
 * 5 s, 20 s, 60 s; the model cache TTL 300 s; the logging policy 7 days, 1024 MiB, 50 MiB per file.
 */
describe('relay review: the seed\'s defaults', function () {
  this.timeout(60_000);
  let kernel: TestKernel;
  let url = '';
  let token = '';

  before(async () => {
    kernel = await createTestKernel({ plugins: [{ plugin: relayPlugin, config: { cli: { enabled: false } } }] });
    url = (await kernel.listen()).url;
    token = relayTokenOf(kernel);
  });
  after(async () => {
    await kernel?.stop();
  });

  async function get(route: string): Promise<Record<string, unknown>> {
    const res = await fetch(`${url}/v1${route}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status, route).to.equal(200);
    return (await res.json()) as Record<string, unknown>;
  }

  it('retries 3 times waiting 5, 20 and 60 seconds, and caches catalogs 300 seconds', async () => {
    const status = await get('/relay/status');
    expect((status.relay as { hosted: Record<string, unknown> }).hosted).to.deep.include({
      retry_attempts: 3,
      retry_backoff_seconds: [5, 20, 60],
      models_cache_ttl_seconds: 300,
    });
  });

  it('keeps traffic logs 7 days, 1024 MiB in all, 50 MiB per file', async () => {
    const logging = await get('/relay/logging');
    expect(logging.policy).to.deep.equal({ retention_days: 7, max_total_mb: 1024, max_file_mb: 50 });
    expect(logging.policy_source).to.equal('config');
  });
});
