/**
 * Runs that cost the server without breaking a limit (issue 9 item 8, "no account can crash the
 * process"): a step that throws an error nothing expects fails its run with the reason instead of
 * leaving it running forever; a loop of cheap-looking steps that costs quadratic time fails on its
 * processing-time budget; and one account cannot keep more than its share of runs going at once.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { askUserFlow, bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { until, type LedgerItem, type RunRecord } from './helpers/gateway-runs.js';
import { oddResultsPlugin } from './fixtures/odd-results-plugin.js';

/** `a = a + [i]` for `rounds` rounds: array_append copies the array each round, so the cost grows with the square. */
const appending = {
  id: 'appending',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['a', 'rounds'] }),
    node({ id: 'loop', type: 'for', inputs: ['start', 'end', 'step'], outputs: ['i'], data: { pinDefaults: { start: 0, step: 1 } } }),
    node({ id: 'read', type: 'get_var', exec: false, inputs: ['name'], outputs: ['value'], data: { pinDefaults: { name: 'a' } } }),
    node({ id: 'append', type: 'array_append', exec: false, inputs: ['array', 'item'], outputs: ['result'] }),
    node({ id: 'grow', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 'a' } } }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'], data: { pinDefaults: { response: 'appended' } } }),
  ],
  edges: edges('start -> loop', 'loop:loop -> grow', 'loop:done -> end', 'start.rounds -> loop.end', 'read.value -> append.array', 'loop.i -> append.item', 'append.result -> grow.value'),
};

/** start → measure (an effect of odd-results whose result storage refuses) → end. */
const measuring = {
  id: 'measuring',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['base'] }),
    node({ id: 'measure', type: 'measure', inputs: ['base'], outputs: ['value'] }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['value'] }),
  ],
  edges: edges('start -> measure', 'measure -> end', 'start.base -> measure.base', 'measure.value -> end.value'),
};

/** start → tag (a pure exec node of odd-results whose output is a Symbol) → end with that output. */
const tagging = {
  id: 'tagging',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['name'] }),
    node({ id: 'tag', type: 'tag', inputs: ['name'], outputs: ['tag'] }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['tag'] }),
  ],
  edges: edges('start -> tag', 'tag -> end', 'start.name -> tag.name', 'tag.tag -> end.tag'),
};

/** Ends at once with `message` as its output. */
const echo = {
  id: 'echo',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ['message'] }), node({ id: 'end', type: 'on_flow_end', inputs: ['response'] })],
  edges: edges('start -> end', 'start.message -> end.response'),
};

const ended = (r: RunRecord) => r.status !== 'running' && r.status !== 'waiting';
const statusRecords = (items: LedgerItem[]) => items.filter((r) => r.effect?.type === 'emit_event' && r.effect.payload.name === 'abstract.status');

describe('run budgets: unexpected step errors, processing time and active runs per account', function () {
  this.timeout(300_000);
  let k: TestKernel;
  let bob = '';
  const call = (token: string, method: 'GET' | 'POST', url: string, payload?: unknown) => k.inject({ method, url, token, payload: payload as Record<string, unknown> | undefined });
  const getRun = async (token: string, id: string) => (await call(token, 'GET', `/api/gateway/runs/${id}`)).json<RunRecord>();
  const ledger = async (token: string, id: string) => (await call(token, 'GET', `/api/gateway/runs/${id}/ledger?limit=2000`)).json<{ items: LedgerItem[] }>().items;
  const start = async (token: string, bundleId: string, inputData: Record<string, unknown> = {}) => {
    const res = await call(token, 'POST', '/api/gateway/runs/start', { bundle_id: bundleId, input_data: inputData });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<{ run_id: string }>().run_id;
  };

  before(async () => {
    k = await createTestKernel({
      plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { limits: { maxRunCpuMs: 1000, maxActiveRunsPerAccount: 2 } } }, oddResultsPlugin],
    });
    const created = await call(k.adminToken, 'POST', '/api/gateway/admin/users', { account: 'bob' });
    expect(created.statusCode).to.equal(201);
    bob = created.json<{ token: { token: string } }>().token.token;
    for (const token of [k.adminToken, bob]) {
      for (const flow of [appending, measuring, tagging, echo, askUserFlow('ask')]) {
        const body = multipart({}, { name: `${flow.id}.flow`, bytes: bundle(flow.id, '1.0.0', flow) });
        const res = await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token, payload: body.payload, headers: body.headers });
        expect(res.statusCode, res.body).to.equal(201);
      }
    }
  });
  after(() => k?.stop());

  it('a step that throws an unexpected error fails its run with the reason (it stayed running forever), once, and the server carries on', async () => {
    const runId = await start(bob, 'measuring', { base: 2 });
    const run = await until(() => getRun(bob, runId), ended, 60_000);
    expect(run.status).to.equal('failed');
    expect(run.error).to.match(/^The run stopped on an unexpected error at node 'measure': RangeError: \d+ was too large to fit in MessagePack/);
    // One sentence: no stack, no absolute path of the server.
    expect(run.error).not.to.match(/\n|\bat \S+ \(|file:|\/(home|usr|work|tmp|root)\//);
    const items = await ledger(bob, runId);
    expect(statusRecords(items).map((r) => r.effect!.payload.payload)).to.deep.equal([{ text: 'failed' }]);
    expect(items.at(-2)).to.deep.include({ status: 'failed', error: run.error });

    expect((await call(k.adminToken, 'GET', '/api/health')).statusCode).to.equal(200);
    const other = await start(bob, 'echo', { message: 'still here' });
    expect((await until(() => getRun(bob, other), ended, 60_000)).output).to.deep.include({ response: 'still here' });
  });

  it('a run whose own variables hold a value storage refuses still ends failed with the reason (ending it failed the same way)', async () => {
    const runId = await start(bob, 'tagging', { name: 'odd' });
    const run = await until(() => getRun(bob, runId), ended, 60_000);
    expect(run.status).to.equal('failed');
    expect(run.error).to.match(/^The run stopped on an unexpected error at node '(tag|end)': .*symbol/i);
    expect(statusRecords(await ledger(bob, runId)).map((r) => r.effect!.payload.payload)).to.deep.equal([{ text: 'failed' }]);
    expect((await call(k.adminToken, 'GET', '/api/health')).statusCode).to.equal(200);
  });

  it('an array_append loop of 100,000 rounds fails on limits.maxRunCpuMs (it burned a core for minutes under every other limit)', async () => {
    const runId = await start(bob, 'appending', { a: [], rounds: 100_000 });
    const run = await until(() => getRun(bob, runId), ended, 240_000);
    expect(run.status).to.equal('failed');
    expect(run.error).to.match(/^The run spent more than 1 s of processing time stepping at node '(loop|grow)', the most one run may spend \(setting `limits\.maxRunCpuMs` of the gateway-runs plugin\)\.$/);
    expect(statusRecords(await ledger(bob, runId))).to.have.length(1);
    expect((await call(k.adminToken, 'GET', '/api/health')).statusCode).to.equal(200);

    // A short loop stays within the budget and completes.
    const short = await start(bob, 'appending', { a: [], rounds: 10 });
    expect(await until(() => getRun(bob, short), ended, 60_000)).to.deep.include({ status: 'completed' });
  });

  it('a non-admin account past limits.maxActiveRunsPerAccount is refused with 429 on start and schedule, and accepted again once a run ends', async () => {
    const waiting = [await start(bob, 'ask'), await start(bob, 'ask')];
    for (const id of waiting) await until(() => getRun(bob, id), (r) => r.status === 'waiting');

    const refused = await call(bob, 'POST', '/api/gateway/runs/start', { bundle_id: 'ask' });
    expect(refused.statusCode).to.equal(429);
    expect(refused.json()).to.deep.equal({
      detail: {
        reason_code: 'too_many_active_runs',
        message: "Account 'bob' already has 2 runs running or waiting, the most one account may have at once (setting `limits.maxActiveRunsPerAccount` of the gateway-runs plugin); cancel one or wait until one ends.",
      },
    });
    // A schedule is a root run too: it cannot be used to get around the cap.
    const scheduled = await call(bob, 'POST', '/api/gateway/runs/schedule', { bundle_id: 'echo', start_at: 'now', interval: '1h', repeat_count: 1 });
    expect(scheduled.statusCode, scheduled.body).to.equal(429);
    // The admin is not capped.
    await start(k.adminToken, 'echo', { message: 'admin' });

    // One of bob's runs ends (answered): bob may start again, and is refused again past the cap.
    const answered = await call(bob, 'POST', '/api/gateway/commands', { command_id: randomBytes(8).toString('hex'), run_id: waiting[0], type: 'resume', payload: { payload: { response: 'Bob' } } });
    expect(answered.statusCode).to.equal(200);
    await until(() => getRun(bob, waiting[0]!), ended);
    const third = await start(bob, 'ask');
    expect((await call(bob, 'POST', '/api/gateway/runs/start', { bundle_id: 'ask' })).statusCode).to.equal(429);

    // A cancel frees a place too.
    const cancelled = await call(bob, 'POST', '/api/gateway/commands', { command_id: randomBytes(8).toString('hex'), run_id: third, type: 'cancel', payload: {} });
    expect(cancelled.statusCode).to.equal(200);
    await until(() => getRun(bob, third), ended);
    await start(bob, 'ask');
  });
});
