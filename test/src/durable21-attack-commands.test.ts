/**
 * Attacks on the durable step path (issue 21) through HTTP on a test kernel: a run whose answers
 * are staged in memory (runtime/effect-durability.ts) between its commits, with commands landing
 * between its steps (the run lock is released between steps), ledger limits reached by staged
 * answers, and long loops of answers beside other runs. Whatever happens, the ledger a client
 * reads is dense, each answer is there once and in order, and a run ends once.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { edges, node } from './helpers/flow-builder.js';
import { gatewayRuns, until, type LedgerItem } from './helpers/gateway-runs.js';

const MAX_RUN_BYTES = 24 * 1024 * 1024;

/** `count` answers in a `for` loop (each says its index, with `pad` appended), then the end. */
const sayMany = {
  id: 'say-many',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['count', 'pad'] }),
    node({ id: 'loop', type: 'for', inputs: ['start', 'end', 'step'], outputs: ['i'], data: { pinDefaults: { start: 0, step: 1 } } }),
    node({ id: 'text', type: 'concat', exec: false, inputs: ['a', 'b'], data: { concatConfig: { separator: ':' } } }),
    node({ id: 'say', type: 'answer_user', inputs: ['message'] }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'], data: { pinDefaults: { response: 'done' } } }),
  ],
  edges: edges('start -> loop', 'loop:loop -> say', 'loop:done -> end', 'start.count -> loop.end', 'loop.i -> text.a', 'start.pad -> text.b', 'text.result -> say.message'),
};

const ended = (r: { status: string }) => ['completed', 'failed', 'cancelled'].includes(r.status);
const said = (items: LedgerItem[]) => items.filter((r) => r.effect?.type === 'answer_user' && r.status === 'completed').map((r) => Number(String((r.result as { message: string }).message).split(':')[0]));
const statusRecords = (items: LedgerItem[]) => items.filter((r) => r.idempotency_key?.startsWith('system:terminal_status:'));

/** Dense cursors; every answer started then completed (one pair, one step id); the answers said 0, 1, 2, ... in order; no key completed twice. */
function expectWhole(items: LedgerItem[], what: string): number[] {
  expect(items.map((r) => r.cursor), `${what}: cursors`).to.deep.equal(items.map((_, i) => i + 1));
  const says = items.filter((r) => r.effect?.type === 'answer_user');
  for (let i = 0; i < says.length; i += 2) {
    expect([says[i]!.status, says[i + 1]?.status], `${what}: answer pair at ${i}`).to.deep.equal(['started', 'completed']);
    expect(says[i + 1]!.step_id).to.equal(says[i]!.step_id);
  }
  const numbers = said(items);
  expect(numbers, `${what}: answers in order`).to.deep.equal(numbers.map((_, i) => i));
  const keys = items.filter((r) => r.status === 'completed' && r.idempotency_key).map((r) => r.idempotency_key);
  expect(new Set(keys).size, `${what}: keys completed once`).to.equal(keys.length);
  return numbers;
}

describe('durable21 attack: commands, limits and long loops against staged answers', function () {
  this.timeout(300_000);
  let k: TestKernel;
  const api = gatewayRuns(() => k);
  const start = async (count: number, pad = '') => {
    const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: 'say-many', input_data: { count, pad } } });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<{ run_id: string }>().run_id;
  };
  /** The whole ledger, page after page. */
  const ledger = async (runId: string) => {
    const items: LedgerItem[] = [];
    for (;;) {
      const page = (await k.inject({ url: `/api/gateway/runs/${runId}/ledger?after=${items.length}&limit=2000`, token: k.adminToken })).json<{ items: LedgerItem[] }>().items;
      if (!page.length) return items;
      items.push(...page);
    }
  };
  /** Waits until the run's ledger shows at least `n` answers (commits happen at slice ends). */
  const untilSaid = (runId: string, n: number) => until(() => ledger(runId), { what: `run ${runId} to show ${n} answers`, ok: (items) => said(items).length >= n, deadline: 120_000, every: 5 });

  before(async () => {
    k = await createTestKernel({
      plugins: [inferencePlugin, { plugin: ledgerPlugin, config: { maxRecordBytes: 65_536, maxRunBytes: MAX_RUN_BYTES } }, workspacesPlugin, gatewayRunsPlugin],
    });
    await api.uploadBundle('say-many', sayMany);
  });
  after(() => k?.stop());

  it('pause between staged steps: the answers so far are committed with the pause; resume goes on; every answer once, in order', async () => {
    const runId = await start(3000);
    await untilSaid(runId, 1);
    await api.command(runId, 'pause');
    const paused = await until(() => api.getRun(runId), { what: 'the run to wait in its pause', ok: (r) => r.waiting?.reason === 'user' || ended(r), deadline: 120_000 });
    expect(paused.status).to.equal('waiting');
    const during = await ledger(runId);
    const before = expectWhole(during, 'paused');
    expect(before.length).to.be.below(3000);
    await api.command(runId, 'resume');
    const run = await until(() => api.getRun(runId), { what: 'the run to end', ok: ended, deadline: 240_000 });
    expect(run.status, run.error ?? '').to.equal('completed');
    const items = await ledger(runId);
    expect(items.slice(0, during.length)).to.deep.equal(during);
    expect(expectWhole(items, 'resumed')).to.have.length(3000);
    expect(statusRecords(items)).to.have.length(1);
  });

  it('cancel between staged steps: the staged answers are committed ahead of the one end', async () => {
    const runId = await start(3000);
    await untilSaid(runId, 1);
    await api.command(runId, 'cancel', { reason: 'enough' });
    const run = await until(() => api.getRun(runId), { what: 'the run to end', ok: ended, deadline: 120_000 });
    expect(run.status).to.equal('cancelled');
    const items = await ledger(runId);
    expect(expectWhole(items, 'cancelled').length).to.be.below(3000);
    expect(statusRecords(items).map((r) => r.idempotency_key)).to.deep.equal(['system:terminal_status:cancelled']);
    expect(items[items.length - 1]!.idempotency_key).to.equal('system:terminal_status:cancelled');
  });

  it('compact_memory and inject_guidance between staged steps: their records and the answers keep their order; the run completes', async () => {
    const runId = await start(3000);
    await untilSaid(runId, 1);
    await api.command(runId, 'compact_memory', { keep_last: 2 });
    await api.command(runId, 'inject_guidance', { guidance: 'hurry' });
    const run = await until(() => api.getRun(runId), { what: 'the run to end', ok: ended, deadline: 240_000 });
    expect(run.status, run.error ?? '').to.equal('completed');
    const items = await ledger(runId);
    expect(expectWhole(items, 'with commands')).to.have.length(3000);
    expect(items.filter((r) => r.effect?.type === 'memory_compact').map((r) => r.result?.reason_code)).to.deep.equal(['nothing_to_compact']);
  });

  it('answers that fill the run\'s ledger (maxRunBytes) while staged: the run fails with the ledger\'s reason, nothing half-written, other runs go on', async () => {
    const runId = await start(2000, 'x'.repeat(30_000));
    const run = await until(() => api.getRun(runId), { what: 'the run to end', ok: ended, deadline: 120_000 });
    expect(run.status).to.equal('failed');
    expect(run.error).to.equal(`Run ${runId} has written 24 MiB to its ledger, the most one run may write (setting \`maxRunBytes\` of the ledger plugin).`);
    const items = await ledger(runId);
    expect(expectWhole(items, 'full').length).to.be.within(150, 500);
    expect(items.slice(-2).map((r) => [r.status, r.error === run.error])).to.deep.equal([['failed', true], ['completed', false]]);
    expect(statusRecords(items)).to.have.length(1);
    const other = await start(3);
    expect((await until(() => api.getRun(other), { what: 'another run to end', ok: ended, deadline: 60_000 })).status).to.equal('completed');
  });

  it('an answer over maxRecordBytes after staged ones: the run fails with the ledger\'s reason; the answers before it are all there', async () => {
    const runId = await start(5, 'y'.repeat(70_000));
    const run = await until(() => api.getRun(runId), { what: 'the run to end', ok: ended, deadline: 60_000 });
    expect(run.status).to.equal('failed');
    expect(run.error).to.equal("The ledger record of node 'say' is larger than 64 KiB, the largest record a run may write (setting `maxRecordBytes` of the ledger plugin).");
    const items = await ledger(runId);
    expect(expectWhole(items, 'oversized')).to.deep.equal([]);
    expect(statusRecords(items)).to.have.length(1);
  });

  it('a loop of thousands of answers does not starve other runs or requests: short runs started during it end while it still runs', async () => {
    const long = await start(10_000);
    await untilSaid(long, 1);
    for (let i = 0; i < 3; i++) {
      const short = await start(3);
      const run = await until(() => api.getRun(short), { what: 'a short run to end', ok: ended, deadline: 60_000 });
      expect(run.status).to.equal('completed');
    }
    expect((await api.getRun(long)).status, 'the long run still runs').to.equal('running');
    const run = await until(() => api.getRun(long), { what: 'the long run to end', ok: ended, deadline: 280_000, every: 200 });
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(expectWhole(await ledger(long), 'long')).to.have.length(10_000);
  });
});
