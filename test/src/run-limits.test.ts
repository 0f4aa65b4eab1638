/**
 * Per-run limits (issue 9 item 8): a workflow cannot grow memory, disk or CPU without bound. A run
 * that takes too many steps, grows its variables too large, writes a record too large or fills its
 * ledger fails with a reason naming the limit and its setting; the server stays healthy.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { gatewayRuns, ServedKeel, until, type LedgerItem, type RunRecord } from './helpers/gateway-runs.js';

/** `s = s + s` in a loop of 64 rounds: 2^64 characters if nothing stops it. */
const doubling = {
  id: 'doubling',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['s'] }),
    node({ id: 'loop', type: 'for', inputs: ['start', 'end', 'step'], outputs: ['i'], data: { pinDefaults: { start: 0, end: 64, step: 1 } } }),
    node({ id: 'read', type: 'get_var', exec: false, inputs: ['name'], outputs: ['value'], data: { pinDefaults: { name: 's' } } }),
    node({ id: 'twice', type: 'concat', exec: false, inputs: ['a', 'b'], outputs: ['result'], data: { concatConfig: { separator: '' } } }),
    node({ id: 'double', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 's' } } }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
  ],
  edges: edges('start -> loop', 'loop:loop -> double', 'loop:done -> end', 'read.value -> twice.a', 'read.value -> twice.b', 'twice.result -> double.value', 'read.value -> end.response'),
};

/** `s = [s]` in a loop: a few bytes a round, but nested one level deeper each time (saving it recursed until the stack overflowed). */
const nesting = {
  id: 'nesting',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['s'] }),
    node({ id: 'loop', type: 'for', inputs: ['start', 'end', 'step'], outputs: ['i'], data: { pinDefaults: { start: 0, end: 100_000, step: 1 } } }),
    node({ id: 'read', type: 'get_var', exec: false, inputs: ['name'], outputs: ['value'], data: { pinDefaults: { name: 's' } } }),
    node({ id: 'wrap', type: 'make_array', exec: false, inputs: ['a'], outputs: ['result'] }),
    node({ id: 'nest', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 's' } } }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
  ],
  edges: edges('start -> loop', 'loop:loop -> nest', 'loop:done -> end', 'read.value -> wrap.a', 'wrap.result -> nest.value', 'read.value -> end.response'),
};

/** A `while` whose condition never turns false, counting in a variable. */
const endless = {
  id: 'endless',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: [] }),
    node({ id: 'spin', type: 'while', inputs: ['condition'], outputs: ['index'], data: { pinDefaults: { condition: true } } }),
    node({ id: 'count', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 'n' } } }),
    node({ id: 'end', type: 'on_flow_end', inputs: [] }),
  ],
  edges: edges('start -> spin', 'spin:loop -> count', 'spin:done -> end', 'spin.index -> count.value'),
};

/** Says `message` `times` times (one answer_user effect each: two ledger records). */
const sayTimes = {
  id: 'say-times',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['message', 'times'] }),
    node({ id: 'loop', type: 'for', inputs: ['start', 'end', 'step'], outputs: ['i'], data: { pinDefaults: { start: 0, step: 1 } } }),
    node({ id: 'say', type: 'answer_user', inputs: ['message'] }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'], data: { pinDefaults: { response: 'said' } } }),
  ],
  edges: edges('start -> loop', 'loop:loop -> say', 'loop:done -> end', 'start.times -> loop.end', 'start.message -> say.message'),
};

/** Counts `rounds` rounds in a loop (two steps a round), then ends with the count. */
const counting = (id: string) => ({
  id,
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['rounds'] }),
    node({ id: 'loop', type: 'for', inputs: ['start', 'end', 'step'], outputs: ['i'], data: { pinDefaults: { start: 0, step: 1 } } }),
    node({ id: 'count', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 'n' } } }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'], data: { pinDefaults: { response: 'counted' } } }),
  ],
  edges: edges('start -> loop', 'loop:loop -> count', 'loop:done -> end', 'start.rounds -> loop.end', 'loop.i -> count.value'),
});

/** Counts 150 rounds itself, then runs `counting` as a subflow child for another 150 rounds. */
const parentThenChild = {
  id: 'parent',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: [] }),
    node({ id: 'loop', type: 'for', inputs: ['start', 'end', 'step'], outputs: ['i'], data: { pinDefaults: { start: 0, end: 150, step: 1 } } }),
    node({ id: 'count', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 'n' } } }),
    node({ id: 'child', type: 'subflow', inputs: ['rounds'], outputs: ['output'], data: { subflowId: 'counting', pinDefaults: { rounds: 150 } } }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
  ],
  edges: edges('start -> loop', 'loop:loop -> count', 'loop:done -> child', 'child -> end', 'loop.i -> count.value', 'child.output -> end.response'),
};

/** Ends at once with `message` as its output. */
const echo = {
  id: 'echo',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ['message'] }), node({ id: 'end', type: 'on_flow_end', inputs: ['response'] })],
  edges: edges('start -> end', 'start.message -> end.response'),
};

const statusRecord = (items: LedgerItem[]) => items.filter((r) => r.effect?.type === 'emit_event' && r.effect.payload.name === 'abstract.status');
const ledgerBytes = (items: LedgerItem[]) => items.reduce((n, r) => n + JSON.stringify(r).length, 0);
const ended = (r: RunRecord) => r.status !== 'running' && r.status !== 'waiting';

describe('run limits: a runaway workflow fails with the limit it hit, the server stays healthy', function () {
  this.timeout(300_000);

  describe('on the defaults, in a real keel serve process', () => {
    const keel = new ServedKeel();
    before(async () => {
      keel.configure([{ use: '@keel/plugin-inference' }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-workspaces' }, { use: '@keel/plugin-gateway-runs' }]);
      await keel.start();
      for (const [id, flow] of [['doubling', doubling], ['echo', echo]] as const) {
        const body = multipart({}, { name: `${id}.flow`, bytes: bundle(id, '1.0.0', flow) });
        expect((await keel.call('POST', '/api/gateway/bundles/upload', body.payload, body.headers)).status).to.equal(201);
      }
    });
    after(() => keel.dispose());

    it('a string-doubling loop fails naming limits.maxVarsBytes, writes little, and other runs still run', async () => {
      const start = await keel.call('POST', '/api/gateway/runs/start', { bundle_id: 'doubling', input_data: { s: 'ab' } });
      expect(start.status).to.equal(200);
      const runId = start.body.run_id as string;
      const run = await until(() => keel.run(runId), ended, 120_000);
      expect(run.status).to.equal('failed');
      expect(run.error).to.match(/variables grew larger than 16 MiB at node 'double'/).and.to.match(/`limits\.maxVarsBytes` of the gateway-runs plugin/);

      const items = await keel.ledger(runId);
      expect(statusRecord(items).map((r) => r.effect!.payload.payload)).to.deep.equal([{ text: 'failed' }]);
      expect(ledgerBytes(items)).to.be.below(64 * 1024);

      // The server answers and runs other work.
      expect((await keel.call('GET', '/api/health')).status).to.equal(200);
      const other = (await keel.call('POST', '/api/gateway/runs/start', { bundle_id: 'echo', input_data: { message: 'still here' } })).body.run_id as string;
      const done = await until(() => keel.run(other), ended, 60_000);
      expect(done.status).to.equal('completed');
      expect(done.output).to.deep.include({ response: 'still here' });
    });
  });

  describe('with small limits set', () => {
    let k: TestKernel;
    const api = gatewayRuns(() => k);
    const start = async (bundleId: string, inputData: Record<string, unknown>) => {
      const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: bundleId, input_data: inputData } });
      expect(res.statusCode).to.equal(200);
      return res.json<{ run_id: string }>().run_id;
    };

    before(async () => {
      k = await createTestKernel({
        plugins: [
          inferencePlugin,
          { plugin: ledgerPlugin, config: { maxRecordBytes: 65_536, maxRunBytes: 262_144 } },
          workspacesPlugin,
          { plugin: gatewayRunsPlugin, config: { limits: { maxSteps: 500, maxVarsDepth: 32 } } },
        ],
      });
      await api.uploadBundle('endless', endless);
      await api.uploadBundle('say-times', sayTimes);
      await api.uploadBundle('echo', echo);
      await api.uploadBundle('nesting', nesting);
      const body = multipart({}, { name: 'parent.flow', bytes: bundle('parent', '1.0.0', parentThenChild, [counting('counting')]) });
      expect((await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: k.adminToken, payload: body.payload, headers: body.headers })).statusCode).to.equal(201);
    });
    after(() => k?.stop());

    it('an endless loop fails after limits.maxSteps steps', async () => {
      const runId = await start('endless', {});
      const run = await until(() => api.getRun(runId), ended, 60_000);
      expect(run.status).to.equal('failed');
      expect(run.error).to.match(/^The run took more than 500 steps at node '(spin|count)', the most one run may take \(setting `limits\.maxSteps` of the gateway-runs plugin\)\.$/);
      const items = await api.ledger(runId);
      expect(items.map((r) => [r.status, r.error])).to.deep.equal([['failed', run.error], ['completed', null]]);
      expect(statusRecord(items)).to.have.length(1);
    });

    it("a child run counts its own steps against limits.maxSteps, not its parent's too (it started from the parent's count)", async () => {
      const runId = await start('parent', {});
      const run = await until(() => api.getRun(runId), ended, 60_000);
      expect(run.status).to.equal('completed');
      // The child's own end: it completed its 150 rounds (it failed on maxSteps when it inherited the parent's 300 steps).
      expect(run.output?.response).to.deep.equal({ response: 'counted', success: true });
    });

    it('a value nested one level deeper each round fails naming limits.maxVarsDepth (it used to grow until saving the run overflowed the stack)', async () => {
      const runId = await start('nesting', { s: 'x' });
      const run = await until(() => api.getRun(runId), ended, 60_000);
      expect(run.status).to.equal('failed');
      expect(run.error).to.equal("The run's variables nest arrays and objects more than 32 levels deep at node 'nest', the most one run may hold (setting `limits.maxVarsDepth` of the gateway-runs plugin).");
      expect(statusRecord(await api.ledger(runId))).to.have.length(1);
    });

    it('an effect whose record is over the ledger\'s maxRecordBytes fails the run without writing it', async () => {
      const runId = await start('say-times', { message: 'x'.repeat(70_000), times: 3 });
      const run = await until(() => api.getRun(runId), ended, 60_000);
      expect(run.status).to.equal('failed');
      expect(run.error).to.equal("The ledger record of node 'say' is larger than 64 KiB, the largest record a run may write (setting `maxRecordBytes` of the ledger plugin).");
      const items = await api.ledger(runId);
      expect(items.map((r) => [r.node_id, r.status])).to.deep.equal([['say', 'failed'], ['say', 'completed']]);
      expect(ledgerBytes(items)).to.be.below(4096);
    });

    it('a run output over maxRecordBytes ends the run failed, not completed', async () => {
      const runId = await start('echo', { message: 'y'.repeat(70_000) });
      const run = await until(() => api.getRun(runId), ended, 60_000);
      expect(run.status).to.equal('failed');
      expect(run.error).to.match(/larger than 64 KiB.*`maxRecordBytes` of the ledger plugin/);
      expect(run.output).to.equal(null);
      const items = await api.ledger(runId);
      expect(statusRecord(items).map((r) => r.effect!.payload.payload)).to.deep.equal([{ text: 'failed' }]);
      expect(ledgerBytes(items)).to.be.below(4096);
    });

    it("a run that fills its ledger to the ledger's maxRunBytes fails, and its end is still recorded", async () => {
      const runId = await start('say-times', { message: 'z'.repeat(10_000), times: 400 });
      const run = await until(() => api.getRun(runId), ended, 120_000);
      expect(run.status).to.equal('failed');
      expect(run.error).to.equal(`Run ${runId} has written 256 KiB to its ledger, the most one run may write (setting \`maxRunBytes\` of the ledger plugin).`);
      const items = await api.ledger(runId);
      // Some rounds were said, far fewer than 400, and the run's end follows them.
      const said = items.filter((r) => r.node_id === 'say' && r.status === 'completed').length;
      expect(said).to.be.within(5, 20);
      expect(items.slice(-2).map((r) => [r.status, r.effect?.type ?? null])).to.deep.equal([['failed', null], ['completed', 'emit_event']]);
      expect(ledgerBytes(items)).to.be.within(200_000, 262_144 + 4096);
      // Other runs still write their ledgers.
      const other = await start('echo', { message: 'fine' });
      expect((await until(() => api.getRun(other), ended, 60_000)).status).to.equal('completed');
    });
  });
});
