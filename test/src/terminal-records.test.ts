/**
 * A run ends in its ledger exactly once, whatever a crash interrupts (issue 9 item 4). Its last
 * records, its terminal `abstract.status` and its run state used to be separate commits: after a
 * kill -9 between them, the runner replayed the run and wrote its end again. Now they are one
 * commit, and the ledger refuses to end a run twice (which also heals a data dir an older version
 * left in that state). The same holds for the other records a replay could repeat: a resume is
 * committed with the state it leads to, and an effect whose `waiting` record exists waits again
 * without a new attempt.
 */
import path from 'node:path';
import { expect } from 'chai';
import { open } from 'lmdb';
import { askUserFlow, bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { ServedKeel, until, type LedgerItem, type RunRecord } from './helpers/gateway-runs.js';
import { readSse } from './helpers/sse.js';

const PLUGINS = [{ use: '@keel/plugin-inference' }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-workspaces' }, { use: '@keel/plugin-gateway-runs' }];

/**
 * `count` answer_user effects in a `for` loop, then the end node: a run of many commits. (No
 * wait_until: one whose deadline passes while the server is down is issue 9 item 10.)
 */
const sayMany = {
  id: 'say-many',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['count'] }),
    node({ id: 'loop', type: 'for', inputs: ['start', 'end', 'step'], outputs: ['i'], data: { pinDefaults: { start: 0, step: 1 } } }),
    node({ id: 'say', type: 'answer_user', inputs: ['message'], data: { pinDefaults: { message: 'tick' } } }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'], data: { pinDefaults: { response: 'done' } } }),
  ],
  edges: edges('start -> loop', 'loop:loop -> say', 'loop:done -> end', 'start.count -> loop.end'),
};

async function upload(keel: ServedKeel, id: string, flow: Parameters<typeof bundle>[2]): Promise<void> {
  const body = multipart({}, { name: `${id}.flow`, bytes: bundle(id, '1.0.0', flow) });
  expect((await keel.call('POST', '/api/gateway/bundles/upload', body.payload, body.headers)).status).to.equal(201);
}

async function startRun(keel: ServedKeel, count: number, bundleId = 'say-many'): Promise<string> {
  const res = await keel.call('POST', '/api/gateway/runs/start', { bundle_id: bundleId, input_data: { count } });
  expect(res.status).to.equal(200);
  return res.body.run_id as string;
}

/** The caller's runs as the server has them stored (one request, however many runs). */
async function statuses(keel: ServedKeel): Promise<Record<string, string>> {
  const items = (await keel.call('GET', '/api/gateway/runs?limit=1000')).body.items as RunRecord[];
  return Object.fromEntries(items.map((r) => [r.run_id, r.status]));
}

const terminalStatusRecords = (items: LedgerItem[]) => items.filter((r) => r.effect?.type === 'emit_event' && r.effect.payload.name === 'abstract.status');
const endRecords = (items: LedgerItem[]) => items.filter((r) => r.node_id === 'end' && r.status === 'completed' && r.result?.completed === true);
const resumeRecords = (items: LedgerItem[]) => items.filter((r) => r.effect?.type === 'resume');

/** Every effect has at most one final record (`completed` or `waiting`), and each wait exactly one resume. */
function expectNoRepeatedRecords(items: LedgerItem[], what: string): void {
  const finals = items.filter((r) => r.idempotency_key && !r.idempotency_key.startsWith('system:') && (r.status === 'completed' || r.status === 'waiting')).map((r) => r.idempotency_key);
  expect(new Set(finals).size, `final records of one effect in ${what}`).to.equal(finals.length);
  expect(resumeRecords(items).length, `resumes against waits in ${what}`).to.equal(items.filter((r) => r.status === 'waiting').length);
}

/** Opens a stopped server's LMDB environment with the kernel's options (kernel/src/storage/lmdb-env.ts). */
function openData(dataDir: string) {
  return open({ path: path.join(dataDir, 'db'), maxDbs: 512, overlappingSync: false, compression: false });
}

/**
 * Puts a stopped server's data dir into the state a kill -9 between the two commits of a run's end
 * left before the fix: the end records are in the ledger, but the run state (and the ledger's run
 * entry) still say the run is running at its end node, so the runner replays that node at start.
 */
async function rewindToBeforeItsEnd(dataDir: string, runId: string): Promise<void> {
  const root = openData(dataDir);
  const runs = root.openDB<Record<string, unknown>, string>({ name: 'gateway-runs:runs' });
  const ledgerRuns = root.openDB<Record<string, unknown>, string>({ name: 'ledger:runs' });
  const state = runs.get(runId)!;
  expect(state.status).to.equal('completed');
  await runs.put(runId, { ...state, status: 'running', output: null, error: null, current_node: 'end' });
  await ledgerRuns.put(runId, { ...ledgerRuns.get(runId)!, terminal: false, status: 'running' });
  await root.close();
}

/**
 * Puts a stopped server's data dir into the state a kill -9 between an effect's `waiting` record
 * and the run state that says it waits leaves: the run is running at the effect, one effect back.
 */
async function rewindToBeforeItsWait(dataDir: string, runId: string, nodeId: string): Promise<void> {
  const root = openData(dataDir);
  const runs = root.openDB<Record<string, unknown>, string>({ name: 'gateway-runs:runs' });
  const state = runs.get(runId)!;
  expect(state.status).to.equal('waiting');
  await runs.put(runId, { ...state, status: 'running', waiting: null, current_node: nodeId, effect_index: (state.effect_index as number) - 1 });
  await root.close();
}

describe('terminal records: a run ends in its ledger exactly once, whatever a crash interrupts', function () {
  this.timeout(600_000);
  let keel: ServedKeel;

  beforeEach(() => {
    keel = new ServedKeel();
    keel.configure(PLUGINS);
  });
  afterEach(() => keel.dispose());

  it('a restart on a data dir whose run has its end records but not its end state writes no second end', async () => {
    await keel.start();
    await upload(keel, 'say-many', sayMany);
    const runId = await startRun(keel, 2);
    await until(() => keel.run(runId), (r) => r.status === 'completed');
    const before = await keel.ledger(runId);
    expect(terminalStatusRecords(before)).to.have.length(1);
    expect(endRecords(before)).to.have.length(1);

    await keel.stop();
    await rewindToBeforeItsEnd(keel.dataDir, runId);
    await keel.start();

    // The runner picks the run up at start and replays its end node; the run ends as recorded.
    const run = await until(() => keel.run(runId), (r) => r.status !== 'running', 60_000);
    expect(run.status).to.equal('completed');
    expect(run.output).to.deep.include({ response: 'done', success: true });
    const after = await keel.ledger(runId);
    expect(terminalStatusRecords(after)).to.have.length(1);
    expect(endRecords(after)).to.have.length(1);
    expect(after).to.deep.equal(before);
    // The stream of a finished run still ends (the ledger's run entry is terminal again).
    const stream = await readSse(`${keel.url}/api/gateway/runs/${runId}/ledger/stream?after=${after.length}`, { token: keel.adminToken, deadline: 60_000 });
    expect(stream.text).to.match(/event: done/);
  });

  it('a restart on a data dir whose run recorded its wait but not its waiting state records the wait once', async () => {
    await keel.start();
    await upload(keel, 'ask-once', askUserFlow('ask-once'));
    const runId = await startRun(keel, 0, 'ask-once');
    await until(() => keel.run(runId), (r) => r.status === 'waiting');
    const before = await keel.ledger(runId);
    expect(before.map((r) => [r.node_id, r.status])).to.deep.equal([['ask', 'started'], ['ask', 'waiting']]);

    await keel.stop();
    await rewindToBeforeItsWait(keel.dataDir, runId, 'ask');
    await keel.start();

    await until(() => keel.run(runId), (r) => r.status === 'waiting', 60_000);
    expect(await keel.ledger(runId)).to.deep.equal(before);
    // The wait is the same one: answering it ends the run with the answer.
    expect((await keel.call('POST', '/api/gateway/commands', { command_id: crypto.randomUUID(), run_id: runId, type: 'resume', payload: { payload: { response: 'Ada' } } })).status).to.equal(200);
    const run = await until(() => keel.run(runId), (r) => r.status === 'completed', 60_000);
    expect(run.output).to.deep.include({ response: 'Ada' });
    const after = await keel.ledger(runId);
    expect(after.filter((r) => r.node_id === 'ask').map((r) => r.status)).to.deep.equal(['started', 'waiting', 'completed']);
    expectNoRepeatedRecords(after, runId);
  });

  it('32 concurrent runs killed with -9 mid-way, round after round: every run ends with one end record and one terminal status', async () => {
    await keel.start();
    await upload(keel, 'say-many', sayMany);
    const rounds = 5;
    for (let round = 0; round < rounds; round++) {
      // Runs of different lengths, so some are ending whenever the kill lands.
      const ids = await Promise.all(Array.from({ length: 32 }, (_, i) => startRun(keel, 3 + (i % 16))));
      // Kill once about a quarter have finished: the others are mid-way or ending.
      await until(() => statuses(keel), (s) => ids.filter((id) => s[id] === 'completed').length >= 8, 120_000);
      await keel.restart();
      const done = await until(() => statuses(keel), (s) => ids.every((id) => s[id] !== 'running' && s[id] !== 'waiting'), 240_000);
      for (const id of ids) {
        expect(done[id], `run ${id} in round ${round}`).to.equal('completed');
        const items = await keel.ledger(id);
        expect(terminalStatusRecords(items), `terminal status records of ${id} in round ${round}`).to.have.length(1);
        expect(endRecords(items), `end records of ${id} in round ${round}`).to.have.length(1);
        expect(items.map((r) => r.cursor)).to.deep.equal(items.map((_, i) => i + 1));
        expectNoRepeatedRecords(items, `${id} in round ${round}`);
      }
    }
  });
});
