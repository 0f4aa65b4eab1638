/**
 * The `on_schedule` node (reference runtime-nodes §7.3), through the HTTP API on the real runner:
 * a recurrent interval loops (each turn a `wait_until` record, `{until, ready: true}` when already
 * due), an ISO time runs the branch once, a future interval waits until then, `timestamp` is always
 * null, and a schedule that is neither fails the run with the origin's ValueError.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { edges, node } from './helpers/flow-builder.js';
import { gatewayRuns, until, type RunRecord } from './helpers/gateway-runs.js';

const ended = (r: RunRecord) => r.status !== 'running' && r.status !== 'waiting';

/** on_schedule (the entry; config `schedule`, `recurrent`) → answer_user with its `timestamp`, then (`ends`) an end node or nothing (a loop). */
function scheduleFlow(eventConfig: Record<string, unknown>, ends: boolean) {
  return {
    id: 'main',
    entryNode: 'tick',
    nodes: [
      node({ id: 'tick', type: 'on_schedule', inputs: ['schedule', 'recurrent'], outputs: ['timestamp'], data: { eventConfig } }),
      node({ id: 'say', type: 'answer_user', inputs: ['message'], outputs: ['message'] }),
      ...(ends ? [node({ id: 'end', type: 'on_flow_end', inputs: ['response', 'timestamp'] })] : []),
    ],
    edges: edges('tick -> say', 'tick.timestamp -> say.message', ...(ends ? ['say -> end', 'say.message -> end.response', 'tick.timestamp -> end.timestamp'] : [])),
  };
}

describe('flow control: on_schedule', function () {
  this.timeout(180_000);
  let k: TestKernel;
  const api = gatewayRuns(() => k);
  const start = async (bundleId: string, flow: ReturnType<typeof scheduleFlow>) => {
    await api.uploadBundle(bundleId, flow);
    return api.startRun(bundleId, {});
  };
  const finished = (id: string) => until(() => api.getRun(id), { ok: ended, deadline: 90_000, what: `run ${id} to end` });

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
  });
  after(() => k?.stop());

  it('"0s" recurrent loops: every turn a wait_until record {until, ready: true} and the branch again, timestamp null', async () => {
    const id = await start('every-turn', scheduleFlow({ schedule: '0s', recurrent: true }, false));
    const items = await until(() => api.ledger(id), { ok: (l) => l.filter((i) => i.effect?.type === 'wait_until' && i.status === 'completed').length >= 3, deadline: 60_000, what: 'three turns of the schedule' });
    await api.command(id, 'cancel');
    expect((await finished(id)).status).to.equal('cancelled');
    const waits = items.filter((i) => i.effect?.type === 'wait_until' && i.status === 'completed');
    for (const w of waits) {
      expect(w.node_id).to.equal('tick');
      expect(Object.keys(w.result!).sort()).to.deep.equal(['ready', 'until']);
      expect(w.result!.ready).to.equal(true);
      expect(Number.isNaN(Date.parse(String(w.result!.until)))).to.equal(false);
    }
    // Between two turns the branch ran: answer_user with the null timestamp as its message.
    const said = items.filter((i) => i.effect?.type === 'answer_user' && i.status === 'completed');
    expect(said.length).to.be.at.least(2);
    expect(said[0]!.effect!.payload).to.deep.include({ message: '' });
  });

  it('an ISO time (naive = UTC) runs the branch once and the run completes', async () => {
    const id = await start('once', scheduleFlow({ schedule: '2020-01-02T03:04:05', recurrent: true }, true));
    const run = await finished(id);
    expect(run.status).to.equal('completed');
    expect(run.output).to.deep.equal({ response: '', timestamp: null, success: true });
    const waits = (await api.ledger(id)).filter((i) => i.effect?.type === 'wait_until');
    expect(waits.map((i) => i.status)).to.deep.equal(['started', 'completed']);
    expect(waits[0]!.effect!.payload).to.deep.include({ until: '2020-01-02T03:04:05.000Z' });
  });

  it('a future interval waits until then (decimals, spaces and upper-case units accepted)', async () => {
    const before = Date.now();
    const id = await start('later', scheduleFlow({ schedule: ' 1.5 H ', recurrent: false }, true));
    const run = await until(() => api.getRun(id), { ok: (r) => r.status === 'waiting', deadline: 60_000, what: 'the schedule to wait' });
    expect(run.waiting).to.deep.include({ reason: 'until' });
    const due = Date.parse(String(run.waiting!.until));
    expect(due - before).to.be.within(1.5 * 3_600_000 - 1000, 1.5 * 3_600_000 + 120_000);
    await api.command(id, 'cancel');
    await finished(id);
  });

  it("a schedule that is neither an interval nor an ISO time fails the run with the origin's ValueError (a tick exception)", async () => {
    const id = await start('nonsense', scheduleFlow({ schedule: 'soon', recurrent: true }, true));
    const run = await finished(id);
    expect(run).to.deep.include({ status: 'failed', error: "ValueError: Invalid schedule 'soon': expected interval like '30s', '5m', '1h' or an ISO timestamp" });
    expect((await api.ledger(id)).find((i) => i.status === 'failed')).to.deep.include({ node_id: 'tick', idempotency_key: `system:tick_exception:${id}` });
  });

  it('a blank schedule pin falls back to the config, an all-blank one is refused naming the node', async () => {
    const flow = scheduleFlow({ schedule: '2020-01-01T00:00:00Z', recurrent: false }, true);
    (flow.nodes[0]!.data as Record<string, unknown>).pinDefaults = { schedule: '' };
    expect((await finished(await start('fallback', flow))).status).to.equal('completed');
    const blank = scheduleFlow({ schedule: '15s', recurrent: false }, true);
    (blank.nodes[0]!.data as Record<string, unknown>).pinDefaults = { schedule: '   ' };
    expect(await finished(await start('blank', blank))).to.deep.include({ status: 'failed', error: "ValueError: on_schedule node 'tick' missing schedule" });
  });
});
