/**
 * One duration parser (the `ms` package) for schedule intervals and `wait_until` nodes: the units and
 * spellings it reads, and the texts it refuses.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { edges, node } from './helpers/flow-builder.js';
import { gatewayRuns, until, type RunRecord } from './helpers/gateway-runs.js';

type ScheduledRun = RunRecord & { schedule: { interval: string | null } | null };

/** start → wait `duration` counted in `durationType` → end. */
function waitFlow(id: string, duration: unknown, durationType: string) {
  return {
    id,
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: [] }),
      node({ id: 'pause', type: 'wait_until', inputs: ['duration'], data: { pinDefaults: { duration }, effectConfig: { durationType } } }),
      node({ id: 'end', type: 'on_flow_end', inputs: [] }),
    ],
    edges: edges('start -> pause', 'pause -> end'),
  };
}

describe('durations: schedule intervals and wait_until nodes read through one parser', function () {
  this.timeout(120_000);
  let k: TestKernel;
  const runs = gatewayRuns(() => k);
  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
  });
  after(() => k?.stop());

  // Far enough ahead that no occurrence launches while the test runs.
  const later = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const schedule = (interval: string) => k.inject({ method: 'POST', url: '/api/gateway/runs/schedule', token: k.adminToken, payload: { bundle_id: 'keel-chat', start_at: later, interval } });

  it('accepts an interval in any unit and spelling the parser knows', async () => {
    for (const interval of ['300ms', '90s', '90 secs', '5 minutes', '1.5h', '1.5 hrs', ' 2h ', '1 day', '2 weeks', '1 Hour']) {
      const res = await schedule(interval);
      expect(res.statusCode, interval).to.equal(200);
      expect((await runs.getRun(res.json<{ run_id: string }>().run_id) as ScheduledRun).schedule?.interval, interval).to.equal(interval);
    }
  });

  it('refuses an interval without a unit, negative, or in an unknown unit with 400 naming body.interval', async () => {
    for (const interval of ['soon', '100', '-5m', '5 fortnights', '', 'h', '1e3s', `${'9'.repeat(120)}s`]) {
      const res = await schedule(interval);
      expect(res.statusCode, JSON.stringify(interval)).to.equal(400);
      expect(res.json<{ detail: { field: string } }>().detail.field).to.equal('body.interval');
    }
  });

  it('changes a waiting schedule to an interval in weeks with update_schedule', async () => {
    const id = (await schedule('1 hour')).json<{ run_id: string }>().run_id;
    await runs.command(id, 'update_schedule', { interval: '2 weeks' });
    await until(async () => (await runs.getRun(id)) as ScheduledRun, (r) => r.schedule?.interval === '2 weeks');
  });

  it('waits a wait_until node for its duration in minutes or hours', async () => {
    for (const [duration, unit, ms] of [[2, 'minutes', 120_000], [1.5, 'hours', 5_400_000], [30, 'seconds', 30_000]] as const) {
      const bundleId = `wait-${unit}`;
      await runs.uploadBundle(bundleId, waitFlow(bundleId, duration, unit));
      const before = Date.now();
      const id = await runs.startRun(bundleId, {});
      const run = await until(() => runs.getRun(id), (r) => r.waiting?.reason === 'until');
      const due = Date.parse(run.waiting!.until!);
      expect(due, unit).to.be.within(before + ms, Date.now() + ms);
    }
  });

  it('fails a run whose wait_until duration is not a number with an error naming the duration', async () => {
    await runs.uploadBundle('wait-bad', waitFlow('wait-bad', 'soonish', 'minutes'));
    const id = await runs.startRun('wait-bad', {});
    const run = await until(() => runs.getRun(id), (r) => ['completed', 'failed'].includes(r.status));
    // wait_until is an effect node: the error fails the run as the origin's tick exception does (RN §2 rule 5).
    expect(run).to.deep.include({ status: 'failed', error: 'ValueError: wait_until: the duration "soonish" is not a number of minutes' });
    expect((await runs.ledger(id)).find((r) => r.status === 'failed')).to.deep.include({ node_id: 'pause', idempotency_key: `system:tick_exception:${id}` });
  });
});
