/**
 * Attack on the start path (issue 14 reservations, `ActiveRunCap`): every non-admin `POST /runs/start`
 * counted the account's live runs by reading every run it ever made, variables included
 * (`listByAccount`): an account with a few hundred megabytes of old runs made each of its starts
 * decode all of them on the event loop, blocking every account (measured: 1,000 runs of 100 kB,
 * 0.6 s per start; 60 runs of 200,000 numbers, 0.54 s against 5 ms in an empty account, and a
 * start's cost grows with every run, so filling an account is quadratic). The cap now reads an
 * index of the runs running or waiting (`RunStore.activeOf`).
 *
 * The cost test compares the fastest of three starts in the heavy account with the fastest in an
 * empty one, with a wide margin (five times, plus 250 ms; now both take a few ms): a loaded
 * machine slows both alike.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { askUserFlow } from './helpers/flow-builder.js';
import { until } from './helpers/gateway-runs.js';
import { echoFlow, HistoryGateway } from './helpers/history.js';
import { tempDir } from './helpers/paths.js';

describe('attack14: a start never reads every earlier run of the account', function () {
  this.timeout(1_800_000);
  const gw = new HistoryGateway({ limits: { maxActiveRunsPerAccount: 2 } });
  let heavy = '';
  let light = '';
  before(async () => {
    await gw.boot();
    heavy = await createAccount(gw.k, 'heavy');
    light = await createAccount(gw.k, 'light');
    await gw.upload(heavy);
    await gw.upload(light);
  });
  after(() => gw.stop());

  const fastestStart = async (token: string): Promise<number> => {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const run = await gw.start({ bundle_id: 'echo', input_data: { prompt: 'q' } }, token);
      best = Math.min(best, performance.now() - t);
      await gw.until(run, 'completed', token);
    }
    return best;
  };

  it('the cap counts running and waiting runs, and a run that ends frees its slot', async () => {
    const a = await gw.start({ bundle_id: 'ask', input_data: {} }, light);
    const b = await gw.start({ bundle_id: 'ask', input_data: {} }, light);
    await gw.until(a, 'waiting', light);
    await gw.until(b, 'waiting', light);
    const refused = await gw.k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: light, payload: { bundle_id: 'echo', input_data: {} } });
    expect(refused.statusCode, refused.body).to.equal(429);
    expect(refused.json<{ detail: { reason_code?: string } | string }>()).to.have.nested.property('detail');
    await gw.k.inject({ method: 'POST', url: '/api/gateway/commands', token: light, payload: { command_id: crypto.randomUUID(), run_id: a, type: 'cancel', payload: {} } });
    await gw.until(a, 'cancelled', light);
    const admitted = await gw.start({ bundle_id: 'echo', input_data: {} }, light);
    await gw.until(admitted, 'completed', light);
    await gw.k.inject({ method: 'POST', url: '/api/gateway/commands', token: light, payload: { command_id: crypto.randomUUID(), run_id: b, type: 'cancel', payload: {} } });
    await gw.until(b, 'cancelled', light);
  });

  it('a start in an account holding 60 runs of 200,000 numbers costs about what a start in an empty account does', async () => {
    const junk = Array.from({ length: 200_000 }, (_, i) => i);
    for (let i = 0; i < 60; i++) await gw.until(await gw.start({ bundle_id: 'echo', input_data: { junk } }, heavy), 'completed', heavy);
    const empty = await fastestStart(light);
    const loaded = await fastestStart(heavy);
    expect(loaded, `fastest start: ${loaded.toFixed(0)} ms with 60 large runs, ${empty.toFixed(0)} ms without`).to.be.below(empty * 5 + 250);
  });

  it('after a restart the cap still counts the runs waiting from before, and frees a slot when one of them ends', async () => {
    const data = tempDir('keel-attack14-cap-');
    const boot = () => createTestKernel({ dataDir: data.dir, plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { limits: { maxActiveRunsPerAccount: 2 } } }] });
    let k: TestKernel | null = await boot();
    try {
      const token = await createAccount(k, 'restarter');
      await uploadBundleAs(k, token, 'ask', askUserFlow());
      await uploadBundleAs(k, token, 'echo', echoFlow);
      const startAs = (kernel: TestKernel) => kernel.inject({ method: 'POST', url: '/api/gateway/runs/start', token, payload: { bundle_id: 'ask', input_data: {} } });
      const statusOf = (kernel: TestKernel, id: string) => kernel.inject({ url: `/api/gateway/runs/${id}`, token }).then((r) => r.json<{ status: string }>().status);
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const res = await startAs(k);
        expect(res.statusCode, res.body).to.equal(200);
        ids.push(res.json<{ run_id: string }>().run_id);
      }
      for (const id of ids) await until(() => statusOf(k!, id), { what: `run ${id} waiting`, ok: (s) => s === 'waiting', deadline: 120_000 });
      await k.stop();
      k = null;
      k = await boot();
      const refused = await startAs(k);
      expect(refused.statusCode, refused.body).to.equal(429);
      await k.inject({ method: 'POST', url: '/api/gateway/commands', token, payload: { command_id: crypto.randomUUID(), run_id: ids[0], type: 'cancel', payload: {} } });
      await until(() => statusOf(k!, ids[0]!), { what: 'the cancel', ok: (s) => s === 'cancelled', deadline: 120_000 });
      const admitted = await startAs(k);
      expect(admitted.statusCode, admitted.body).to.equal(200);
    } finally {
      await k?.stop();
      data.remove();
    }
  });
});
