import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { until as poll } from './helpers/until.js';

interface Run {
  run_id: string;
  status: string;
  is_scheduled: boolean;
  schedule: { interval: string | null; repeat_count: number | null; target_workflow_id: string } | null;
  output: Record<string, unknown> | null;
  waiting: { reason: string } | null;
}

describe('scheduled runs: POST /runs/schedule, update_schedule, cancel stops the schedule', function () {
  this.timeout(120_000);
  let k: TestKernel;
  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
  });
  after(() => k.stop());

  const schedule = (payload: unknown) => k.inject({ method: 'POST', url: '/api/gateway/runs/schedule', token: k.adminToken, payload });
  const run = async (id: string) => (await k.inject({ url: `/api/gateway/runs/${id}`, token: k.adminToken })).json<Run>();
  const children = async (id: string) => (await k.inject({ url: `/api/gateway/runs?parent_run_id=${id}`, token: k.adminToken })).json<{ items: Run[] }>().items;
  const until = (id: string, ok: (r: Run) => boolean) => poll(() => run(id), { ok, deadline: 60_000, what: `run ${id} to reach the awaited state` });

  it('launches the target flow at start and then every interval, repeat_count times', async () => {
    const res = await schedule({ bundle_id: 'keel-chat', input_data: { prompt: 'Count to three.' }, start_at: 'now', interval: '300ms', repeat_count: 2 });
    expect(res.statusCode).to.equal(200);
    const id = res.json<{ run_id: string }>().run_id;
    const parent = await until(id, (r) => r.status === 'completed');
    expect(parent).to.include({ is_scheduled: true });
    expect(parent.schedule).to.include({ interval: '300ms', repeat_count: 2, target_workflow_id: 'keel-chat@0.1.0:keel-chat' });
    expect(parent.output).to.deep.include({ occurrences: 2 });
    const kids = await children(id);
    expect(kids.map((c) => c.status)).to.deep.equal(['completed', 'completed']);
    expect(kids.every((c) => c.output?.response === '1, 2, 3.')).to.equal(true);
  });

  it('refuses bad schedule fields with 400 naming them', async () => {
    for (const [patch, field] of [[{ interval: 'soon' }, 'body.interval'], [{ start_at: 'tomorrowish' }, 'body.start_at'], [{ repeat_until: 'never' }, 'body.repeat_until']] as const) {
      const res = await schedule({ bundle_id: 'keel-chat', ...patch });
      expect(res.statusCode, field).to.equal(400);
      expect(res.json<{ detail: { field: string } }>().detail.field).to.equal(field);
    }
  });

  it('edits a waiting schedule with update_schedule, and cancel ends it', async () => {
    const id = (await schedule({ bundle_id: 'keel-chat', input_data: { prompt: 'Hi!' }, interval: '1 hour', repeat_count: 5 })).json<{ run_id: string }>().run_id;
    await until(id, (r) => r.status === 'waiting' && r.waiting?.reason === 'until');
    const command = (type: string, payload: unknown) => k.inject({ method: 'POST', url: '/api/gateway/commands', token: k.adminToken, payload: { command_id: crypto.randomUUID(), run_id: id, type, payload } });
    await command('update_schedule', { interval: '2 hours', repeat_count: 3 });
    await until(id, (r) => r.schedule?.interval === '2 hours' && r.schedule.repeat_count === 3);
    await command('cancel', { reason: 'no more' });
    const cancelled = await until(id, (r) => r.status === 'cancelled');
    expect(cancelled.is_scheduled).to.equal(true);
    expect((await children(id)).length).to.equal(1);
  });
});
