/**
 * The code plugin's `warmWorkers`: workers loaded when the kernel starts (before any `code` node
 * runs) and kept loaded past `idleTimeoutMs`, while workers started on demand end when idle. Read
 * through the policy route's `workers` block.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { codePlugin } from '@keel/plugin-code';
import { until } from './helpers/until.js';

type Workers = { warm: number; max: number; ready: number; loading: number };

async function kernelWith(config: Record<string, unknown>): Promise<TestKernel> {
  return createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: codePlugin, config }] });
}

async function workers(k: TestKernel): Promise<Workers> {
  const res = await k.inject({ url: '/api/gateway/visualflows/code/policy', token: k.adminToken });
  expect(res.statusCode).to.equal(200);
  return res.json<{ workers: Workers }>().workers;
}

async function simulate(k: TestKernel): Promise<void> {
  const res = await k.inject({ method: 'POST', url: '/api/gateway/visualflows/code/simulate', token: k.adminToken, payload: { code: 'def transform(_input):\n    return 41 + 1\n' } });
  expect(res.statusCode, res.body).to.equal(200);
  expect(res.json<{ output: unknown }>().output).to.equal(42);
}

describe('code plugin: warm workers', function () {
  this.timeout(240_000);
  let warm: TestKernel | undefined;
  let cold: TestKernel | undefined;
  after(async () => {
    await warm?.stop();
    await cold?.stop();
  });

  it('loads warmWorkers at start, before any call, and keeps them past idleTimeoutMs; on-demand workers end when idle', async () => {
    warm = await kernelWith({ warmWorkers: 1, maxWorkers: 2, idleTimeoutMs: 1_000 });
    cold = await kernelWith({ warmWorkers: 0, maxWorkers: 2, idleTimeoutMs: 1_000 });
    // No call yet: the warm kernel loads its worker on its own; the other has none.
    await until(() => workers(warm!), { what: 'the warm worker to load', ok: (w) => w.ready === 1, deadline: 180_000 });
    expect(await workers(cold)).to.deep.include({ warm: 0, ready: 0, loading: 0 });
    // A call on each; the on-demand worker then idles out, the warm one stays.
    await simulate(cold);
    await simulate(warm);
    await until(() => workers(cold!), { what: 'the on-demand worker to end when idle', ok: (w) => w.ready + w.loading === 0, deadline: 60_000 });
    expect(await workers(warm)).to.deep.include({ warm: 1, ready: 1 });
    await simulate(warm);
  });

  it('refuses to boot with more warm workers than maxWorkers, naming both settings', async () => {
    let error = '';
    try {
      const k = await kernelWith({ warmWorkers: 3, maxWorkers: 2 });
      await k.stop();
    } catch (err) {
      error = (err as Error).message;
    }
    expect(error).to.match(/warmWorkers \(3\) cannot exceed its maxWorkers \(2\)/);
  });
});
