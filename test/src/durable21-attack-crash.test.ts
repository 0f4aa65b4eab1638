/**
 * Attacks on the durable step path (issue 21) with kill -9 of a real `keel serve`: what a client
 * saw before the crash is there after it, in the same place, and the run goes on from a state that
 * agrees with it. Answers are staged in memory (runtime/effect-durability.ts) and committed with
 * the run's next commit; when that commit is an external call's `started` record, the run's state
 * must ride with it, or the replay after a crash starts from a state older than the answers the
 * client already saw and re-runs the steps before them (a random pick, a clock read) differently.
 */
import { expect } from 'chai';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { ServedKeel, until, type LedgerItem } from './helpers/gateway-runs.js';
import { HeldStreamEndpoint } from './helpers/held-stream-endpoint.js';

/** start -> keep (set_var `pick` = a random number) -> a1 (answers it) -> call (llm_call) -> a2 (answers it again) -> end (with it). */
function pickFlow() {
  return {
    id: 'pick',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: [] }),
      node({ id: 'rnd', type: 'random_int', exec: false, inputs: ['min', 'max'], outputs: ['value'], data: { pinDefaults: { min: 1, max: 1_000_000_000 } } }),
      node({ id: 'keep', type: 'set_var', inputs: ['name', 'value'], outputs: ['value'], data: { pinDefaults: { name: 'pick' } } }),
      node({ id: 'a1', type: 'answer_user', inputs: ['message'] }),
      node({ id: 'call', type: 'llm_call', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'hi', temperature: 0 } } }),
      node({ id: 'a2', type: 'answer_user', inputs: ['message'] }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
    ],
    edges: edges('start -> keep', 'keep -> a1', 'a1 -> call', 'call -> a2', 'a2 -> end', 'rnd.value -> keep.value', 'keep.value -> a1.message', 'keep.value -> a2.message', 'keep.value -> end.response'),
  };
}

const RUNS = 6;

const answered = (items: LedgerItem[]) => items.filter((r) => r.effect?.type === 'answer_user' && r.status === 'completed').map((r) => [r.node_id, (r.result as { message: unknown }).message]);

/** Starts RUNS runs of `pick`, kills the process executing them (`kill`) once each call is in flight, releases the calls, and checks every run. */
async function pickScenario(keel: ServedKeel, endpoint: HeldStreamEndpoint, kill: () => Promise<void>): Promise<void> {
  // Several runs, so that some take their steps from the pick to the call in one slice (a slice ends after 20 ms, and then commits the state).
  const runIds: string[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = await keel.call('POST', '/api/gateway/runs/start', { bundle_id: 'pick', input_data: { _runtime: { provider: 'held', model: 'slow', stream: true } } });
    runIds.push(started.body.run_id as string);
  }
  // Each call is in flight (held): its started record, and the answer before it, are durable and shown.
  const seen = new Map<string, LedgerItem[]>();
  for (const runId of runIds) seen.set(runId, await until(() => keel.ledger(runId), { what: `the call of ${runId} to start behind its first answer`, ok: (items) => items.some((r) => r.node_id === 'call' && r.status === 'started'), deadline: 90_000 }));

  await kill();
  endpoint.release();
  for (const runId of runIds) {
    const before = seen.get(runId)!;
    const [[, shown]] = answered(before) as [[string, unknown]];
    expect(String(shown), 'the first answer is shown before the crash').to.match(/^\d+$/);
    const run = await until(() => keel.run(runId), { what: `run ${runId} to end after the restart`, ok: (r) => ['completed', 'failed', 'cancelled'].includes(r.status), deadline: 90_000 });
    expect(run.status, run.error ?? '').to.equal('completed');
    const items = await keel.ledger(runId);
    expect(items.slice(0, before.length), 'every record shown before the crash is where it was').to.deep.equal(before);
    expect(items.map((r) => r.cursor)).to.deep.equal(items.map((_, i) => i + 1));
    expect(answered(items), 'both answers carry the pick the client saw').to.deep.equal([['a1', shown], ['a2', shown]]);
    expect(String(run.output?.response), 'the output carries the pick the client saw').to.equal(String(shown));
    expect(items.filter((r) => r.node_id === 'call').map((r) => [r.status, r.attempt])).to.deep.equal([['started', 1], ['started', 2], ['completed', 2]]);
  }
}

/** A served Keel running `pick` against `endpoint`, with extra start flags. */
async function servePick(keel: ServedKeel, endpoint: HeldStreamEndpoint, flags: string[] = []): Promise<void> {
  const baseUrl = await endpoint.start();
  keel.configure([
    { use: '@keel/plugin-inference', config: { endpoints: [{ name: 'held', baseUrl, models: ['slow'] }] } },
    { use: '@keel/plugin-ledger' },
    { use: '@keel/plugin-workspaces' },
    { use: '@keel/plugin-gateway-runs' },
  ]);
  await keel.start(flags);
  const body = multipart({}, { name: 'pick.flow', bytes: bundle('pick', '1.0.0', pickFlow()) });
  expect((await keel.call('POST', '/api/gateway/bundles/upload', body.payload, body.headers)).status).to.equal(201);
}

describe('durable21 attack: kill -9 while an external call is in flight behind staged answers', function () {
  this.timeout(240_000);
  const endpoint = new HeldStreamEndpoint();
  const keel = new ServedKeel();
  before(() => servePick(keel, endpoint));
  after(async () => {
    await keel.dispose();
    await endpoint.stop();
  });

  it('the answers the clients saw before the crash are the ones their runs go on with: the replay does not pick again', () => pickScenario(keel, endpoint, () => keel.restart()));
});

describe('durable21 attack: kill -9 of a separate `keel runner` while an external call is in flight behind staged answers', function () {
  this.timeout(240_000);
  const endpoint = new HeldStreamEndpoint();
  const keel = new ServedKeel();
  before(async () => {
    await servePick(keel, endpoint, ['--no-runner']);
    await keel.startRunner();
  });
  after(async () => {
    await keel.dispose();
    await endpoint.stop();
  });

  it('the server shows the same records after a new runner takes over, and the runs go on with the pick the clients saw', () =>
    pickScenario(keel, endpoint, async () => {
      await keel.runner!.stop('SIGKILL');
      await keel.startRunner();
    }));
});
