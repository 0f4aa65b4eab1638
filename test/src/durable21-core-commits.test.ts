/**
 * The durable step path commits as often as each effect's durability needs (issue 21 item 1,
 * runtime/effect-durability.ts), counted with the data directory's last commit id
 * (`GET /api/gateway/host/status`): local answers are staged and committed with the run's next
 * commit, an external call's `started` record is durable before the call, a wait's records come
 * with its waiting state, and nothing staged is ever shown before it is durable.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { edges, node } from './helpers/flow-builder.js';
import { gatewayRuns, until, type LedgerItem } from './helpers/gateway-runs.js';
import { HeldStreamEndpoint } from './helpers/held-stream-endpoint.js';

const ANSWERS = 10;

/** on_flow_start -> `count` answer_user nodes -> on_flow_end. */
function answersFlow(id: string, count: number, between?: ReturnType<typeof node>) {
  const says = Array.from({ length: count }, (_, i) => node({ id: `a${i + 1}`, type: 'answer_user', inputs: ['message'], data: { pinDefaults: { message: `answer ${i + 1}` } } }));
  const chain = ['start', ...says.slice(0, count / 2).map((n) => n.id), ...(between ? [between.id] : []), ...says.slice(count / 2).map((n) => n.id), 'end'];
  return {
    id,
    nodes: [node({ id: 'start', type: 'on_flow_start', outputs: [] }), ...says, ...(between ? [between] : []), node({ id: 'end', type: 'on_flow_end', inputs: ['response'], data: { pinDefaults: { response: 'done' } } })],
    edges: edges(...chain.slice(1).map((to, i) => `${chain[i]} -> ${to}`)),
  };
}

const terminal = (r: { status: string }) => ['completed', 'failed', 'cancelled'].includes(r.status);

describe('durable21: the step path commits as often as durability needs', function () {
  this.timeout(180_000);
  const endpoint = new HeldStreamEndpoint();
  let k: TestKernel;
  const { uploadBundle, startRun, getRun, ledger } = gatewayRuns(() => k);
  const lastCommit = async () => (await k.inject({ url: '/api/gateway/host/status', token: k.adminToken })).json<{ data_dir: { storage: { last_commit_id: number } } }>().data_dir.storage.last_commit_id;

  before(async () => {
    const baseUrl = await endpoint.start();
    k = await createTestKernel({ plugins: [{ plugin: inferencePlugin, config: { endpoints: [{ name: 'held', baseUrl, models: ['slow'] }] } }, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    await uploadBundle('answers', answersFlow('answers', ANSWERS));
    const call = node({ id: 'call', type: 'llm_call', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'hi', temperature: 0 } } });
    await uploadBundle('answers-call', answersFlow('answers-call', 4, call));
    const ask = node({ id: 'ask', type: 'ask_user', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'Name?' } } });
    await uploadBundle('answers-ask', answersFlow('answers-ask', 4, ask));
  });
  after(async () => {
    await k?.stop();
    await endpoint.stop();
  });

  it(`a run of ${ANSWERS} answer_user effects costs a few commits from its start to its end (was three per answer), its records all there in order`, async () => {
    // A first run warms what a first run writes once.
    const first = await startRun('answers', {});
    await until(() => getRun(first), terminal);
    const before = await lastCommit();
    const runId = await startRun('answers', {});
    const run = await until(() => getRun(runId), terminal);
    const commits = (await lastCommit()) - before;
    expect(run.status).to.equal('completed');
    // The start's commit and the end's (the staged answers ride with it); three per answer before would be 30 or more.
    // A loaded machine may end the 20 ms slice mid-run, adding a commit per slice: far below 30 still.
    expect(commits, `${commits} commits`).to.be.at.most(10);

    const items = await ledger(runId);
    expect(items.map((r) => r.cursor)).to.deep.equal(items.map((_, i) => i + 1));
    const answers = items.filter((r) => r.effect?.type === 'answer_user');
    expect(answers.map((r) => [r.node_id, r.status])).to.deep.equal(Array.from({ length: ANSWERS }, (_, i) => [[`a${i + 1}`, 'started'], [`a${i + 1}`, 'completed']]).flat());
    expect(answers.filter((r) => r.status === 'completed').map((r) => (r.result as { message: string }).message)).to.deep.equal(Array.from({ length: ANSWERS }, (_, i) => `answer ${i + 1}`));
    // Each completed record shares its step id with its started record.
    for (let i = 0; i < answers.length; i += 2) expect(answers[i + 1]!.step_id).to.equal(answers[i]!.step_id);
    expect(items[items.length - 1]!.idempotency_key).to.match(/^system:terminal_status:completed/);
  });

  it('an external call\'s started record, and every answer before it, is durable while the call is in flight; the answers after it come with the end', async () => {
    const runId = await startRun('answers-call', { provider: 'held', model: 'slow', stream: true });
    await endpoint.firstChunk;
    const during = await ledger(runId);
    expect(during.map((r) => [r.node_id, r.status])).to.deep.equal([['a1', 'started'], ['a1', 'completed'], ['a2', 'started'], ['a2', 'completed'], ['call', 'started']]);
    endpoint.release();
    const run = await until(() => getRun(runId), terminal);
    expect(run.status, run.error ?? '').to.equal('completed');
    const after: LedgerItem[] = await ledger(runId);
    expect(after.slice(0, during.length)).to.deep.equal(during);
    expect(after.filter((r) => r.node_id === 'call').map((r) => r.status)).to.deep.equal(['started', 'completed']);
    expect(after.filter((r) => r.effect?.type === 'answer_user' && r.status === 'completed').map((r) => r.node_id)).to.deep.equal(['a1', 'a2', 'a3', 'a4']);
  });

  it('a run the API shows waiting has its wait, and the answers before it, in the ledger; the wait costs one commit', async () => {
    const before = await lastCommit();
    const runId = await startRun('answers-ask', {});
    const waiting = await until(() => getRun(runId), (r) => r.status === 'waiting' || terminal(r));
    const commits = (await lastCommit()) - before;
    expect(waiting.status).to.equal('waiting');
    expect((await ledger(runId)).map((r) => [r.node_id, r.status])).to.deep.equal([['a1', 'started'], ['a1', 'completed'], ['a2', 'started'], ['a2', 'completed'], ['ask', 'started'], ['ask', 'waiting']]);
    // The start, then the answers staged and the wait's records with the waiting state.
    // Three per answer and three for the ask before (10 with the start); a loaded machine may add a slice's commit.
    expect(commits, `${commits} commits`).to.be.at.most(6);
  });
});
