/**
 * `POST /runs/start` with `wait` (issue 21 item 3): one request starts a run and answers with its
 * record once it has ended (or, with `until: 'waiting'`, waits for input); the timeout answers the run
 * as it is with `reached: false`; bad `wait` values are 400 naming the field and start nothing; past
 * `startWait.maxWaiters` (1 here) a start with `wait` is 503 with Retry-After; a client that goes away
 * frees its place; `POST /runs/schedule` refuses `wait`; another account only ever waits on its own run.
 */
import { expect } from 'chai';
import { createTestKernel, type InjectResponse, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { askUserFlow, edges, node } from './helpers/flow-builder.js';
import { until, type RunRecord } from './helpers/gateway-runs.js';

/** start → end with `response` = the prompt. */
const echoFlow = {
  id: 'echo',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }), node({ id: 'end', type: 'on_flow_end', inputs: ['response'] })],
  edges: edges('start -> end', 'start.prompt -> end.response'),
};

/** A flow whose runs fail (a node type no plugin provides). */
const brokenFlow = {
  id: 'broken',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: [] }), node({ id: 'warp', type: 'quantum_teleport', inputs: [], outputs: [] }), node({ id: 'end', type: 'on_flow_end', inputs: ['response'] })],
  edges: edges('start -> warp', 'warp -> end'),
};

type WaitAnswer = {
  run_id: string;
  runner_warning: string | null;
  resolved_workflow: Record<string, unknown>;
  run: RunRecord & { waiting: { reason: string; prompt?: string } | null };
  wait: { until: string; reached: boolean };
};

describe('durable21 wait: POST /runs/start with wait', function () {
  this.timeout(240_000);
  let k: TestKernel;
  let ann = '';
  let mal = '';
  let session = 0;

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { startWait: { maxWaiters: 1, maxTimeoutS: 120 } } }] });
    ann = await createAccount(k, 'ann');
    mal = await createAccount(k, 'mal');
    for (const token of [ann, mal]) {
      await uploadBundleAs(k, token, 'echo', echoFlow);
      await uploadBundleAs(k, token, 'broken', brokenFlow);
      await uploadBundleAs(k, token, 'ask', askUserFlow());
    }
  });
  after(async () => k?.stop());

  const start = (token: string, body: Record<string, unknown>): Promise<InjectResponse> => k.inject({ method: 'POST', url: '/api/gateway/runs/start', token, payload: body });
  /** The sentence of a gateway refusal (`{detail: "…"}` or `{detail: {reason_code, message}}`). */
  const refusal = (res: InjectResponse): string => {
    const detail = res.json<{ detail: string | { message: string } }>().detail;
    return typeof detail === 'string' ? detail : detail.message;
  };
  const ok = (res: InjectResponse): WaitAnswer => {
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<WaitAnswer>();
  };
  const getRun = async (token: string, id: string) => (await k.inject({ url: `/api/gateway/runs/${id}`, token })).json<Record<string, unknown>>();
  const runsOf = async (token: string, sessionId?: string) => (await k.inject({ url: `/api/gateway/runs${sessionId ? `?session_id=${sessionId}` : ''}`, token })).json<{ items: Array<{ run_id: string; status: string }> }>().items;
  const command = async (token: string, runId: string, type: string) => {
    const res = await k.inject({ method: 'POST', url: '/api/gateway/commands', token, payload: { command_id: crypto.randomUUID(), run_id: runId, type, payload: {} } });
    expect(res.statusCode, res.body).to.equal(200);
  };
  /** A fresh session id, so a test finds the run its still-waiting request started. */
  const newSession = () => `wait-session-${++session}`;
  /** The run a still-waiting start made in `sessionId`, once it waits at its ask_user. */
  const waitingRunIn = async (token: string, sessionId: string) => {
    const [row] = await until(() => runsOf(token, sessionId), { what: `the run of session ${sessionId} to wait for its answer`, ok: (rows) => rows.length === 1 && rows[0]!.status === 'waiting', deadline: 60_000 });
    return row!.run_id;
  };

  it('a run that completes answers in the one request: the seed fields, the run as GET /runs/{id} shows it (status completed, its output), reached', async () => {
    const answer = ok(await start(ann, { bundle_id: 'echo', input_data: { prompt: 'hello once' }, wait: { until: 'completed', timeout_s: 60 } }));
    expect(answer.run.status).to.equal('completed');
    expect(answer.run.output).to.deep.include({ response: 'hello once' });
    expect(answer.run.run_id).to.equal(answer.run_id);
    expect(answer.wait).to.deep.equal({ until: 'completed', reached: true });
    expect(answer.runner_warning).to.equal(null);
    expect(answer.resolved_workflow).to.deep.include({ bundle_id: 'echo', flow_id: 'echo', source: 'client' });
    // An ended run does not change: the answer's run is exactly what GET /runs/{id} answers.
    expect(answer.run).to.deep.equal(await getRun(ann, answer.run_id));
    // Without wait the answer is the seed's, as before.
    const plain = ok(await start(ann, { bundle_id: 'echo', input_data: { prompt: 'no wait' } }));
    expect(Object.keys(plain).sort()).to.deep.equal(['resolved_workflow', 'run_id', 'runner_warning']);
  });

  it("until defaults to 'completed' and timeout_s to the setting: wait: {} answers the ended run", async () => {
    const answer = ok(await start(ann, { bundle_id: 'echo', input_data: { prompt: 'defaults' }, wait: {} }));
    expect(answer.wait).to.deep.equal({ until: 'completed', reached: true });
    expect(answer.run.status).to.equal('completed');
  });

  it('a failed run answers with status failed and its error', async () => {
    const answer = ok(await start(ann, { bundle_id: 'broken', wait: { timeout_s: 60 } }));
    expect(answer.wait).to.deep.equal({ until: 'completed', reached: true });
    expect(answer.run.status).to.equal('failed');
    expect(answer.run.error).to.be.a('string').and.not.equal('');
  });

  it('a run cancelled while its start waits answers with status cancelled', async () => {
    const sessionId = newSession();
    const pending = start(ann, { bundle_id: 'ask', session_id: sessionId, wait: { until: 'completed', timeout_s: 120 } });
    const runId = await waitingRunIn(ann, sessionId);
    await command(ann, runId, 'cancel');
    const answer = ok(await pending);
    expect(answer.run_id).to.equal(runId);
    expect(answer.run.status).to.equal('cancelled');
    expect(answer.wait).to.deep.equal({ until: 'completed', reached: true });
  });

  it("'waiting' answers at an ask_user wait; 'completed' on the same flow times out with reached false and the run as it is", async () => {
    const waiting = ok(await start(ann, { bundle_id: 'ask', wait: { until: 'waiting', timeout_s: 30 } }));
    expect(waiting.wait).to.deep.equal({ until: 'waiting', reached: true });
    expect(waiting.run.status).to.equal('waiting');
    expect(waiting.run.waiting).to.deep.include({ reason: 'user', prompt: 'Your name?' });

    const timedOut = ok(await start(ann, { bundle_id: 'ask', wait: { until: 'completed', timeout_s: 1.5 } }));
    expect(timedOut.wait).to.deep.equal({ until: 'completed', reached: false });
    expect(timedOut.run.run_id).to.equal(timedOut.run_id);
    expect(['running', 'waiting']).to.include(timedOut.run.status);
    for (const id of [waiting.run_id, timedOut.run_id]) await command(ann, id, 'cancel');
  });

  it('bad wait values answer 400 naming the field, and start nothing', async () => {
    const sessionId = newSession();
    const cases: Array<[unknown, string]> = [
      [{ timeout_s: 0 }, 'body.wait.timeout_s'],
      [{ timeout_s: -5 }, 'body.wait.timeout_s'],
      [{ timeout_s: 121 }, 'body.wait.timeout_s'],
      [{ timeout_s: '10' }, 'body.wait.timeout_s'],
      [{ timeout_s: null }, 'body.wait.timeout_s'],
      [{ until: 'done' }, 'body.wait.until'],
      [{ run_id: 'someone-elses-run' }, 'body.wait.run_id'],
      ['completed', 'body.wait'],
    ];
    for (const [wait, field] of cases) {
      const res = await start(ann, { bundle_id: 'echo', session_id: sessionId, input_data: { prompt: 'x' }, wait });
      expect(res.statusCode, `${JSON.stringify(wait)}: ${res.body}`).to.equal(400);
      expect(refusal(res), JSON.stringify(wait)).to.contain(field.replace(/^body\./, ''));
      expect(res.json<{ detail: { field?: string } }>().detail.field, JSON.stringify(wait)).to.equal(field);
    }
    const over = refusal(await start(ann, { bundle_id: 'echo', wait: { timeout_s: 121 } }));
    expect(over).to.contain('startWait.maxTimeoutS').and.contain('120 s');
    expect(await runsOf(ann, sessionId), 'a refused wait started no run').to.deep.equal([]);
  });

  it('past startWait.maxWaiters a start with wait answers 503 with Retry-After and starts nothing; once the wait ends the place is free again', async () => {
    const holder = newSession();
    const pending = start(ann, { bundle_id: 'ask', session_id: holder, wait: { timeout_s: 120 } });
    const runId = await waitingRunIn(ann, holder);

    const refusedIn = newSession();
    const refused = await start(mal, { bundle_id: 'echo', session_id: refusedIn, input_data: { prompt: 'x' }, wait: { timeout_s: 5 } });
    expect(refused.statusCode, refused.body).to.equal(503);
    expect(refused.headers['retry-after']).to.equal('1');
    expect(refusal(refused)).to.contain('startWait.maxWaiters');
    expect(await runsOf(mal, refusedIn), 'a refused wait started no run').to.deep.equal([]);
    // A start without wait is not held back by the waiters.
    ok(await start(mal, { bundle_id: 'echo', input_data: { prompt: 'no wait' } }));

    await command(ann, runId, 'cancel');
    expect(ok(await pending).run.status).to.equal('cancelled');
    expect(ok(await start(mal, { bundle_id: 'echo', input_data: { prompt: 'after' }, wait: { timeout_s: 60 } })).run.status).to.equal('completed');
  });

  it('a client that disconnects ends its wait at once: its place among the waiters is free again', async () => {
    const { url } = await k.listen();
    const holder = newSession();
    const controller = new AbortController();
    const held = fetch(`${url}/api/gateway/runs/start`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ann}`, 'content-type': 'application/json' },
      body: JSON.stringify({ bundle_id: 'ask', session_id: holder, wait: { timeout_s: 120 } }),
      signal: controller.signal,
    }).catch((err: Error) => err);
    const runId = await waitingRunIn(ann, holder);
    expect((await start(mal, { bundle_id: 'echo', input_data: { prompt: 'x' }, wait: { timeout_s: 5 } })).statusCode, 'the place is held while the client waits').to.equal(503);

    controller.abort();
    expect(await held).to.be.instanceOf(Error);
    // The wait's 120 s are far from over: only the disconnect can have freed the place.
    const admitted = await until(() => start(mal, { bundle_id: 'echo', input_data: { prompt: 'freed' }, wait: { timeout_s: 60 } }), { what: 'a start with wait to be admitted after the client left', ok: (res) => res.statusCode !== 503, deadline: 60_000, every: 50 });
    expect(ok(admitted).run.status).to.equal('completed');
    expect((await getRun(ann, runId)).status, 'the run itself goes on').to.equal('waiting');
    await command(ann, runId, 'cancel');
  });

  it('POST /runs/schedule refuses wait with 400 naming the field, and schedules nothing', async () => {
    const sessionId = newSession();
    const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/schedule', token: ann, payload: { bundle_id: 'echo', session_id: sessionId, interval: '1h', wait: { until: 'completed' } } });
    expect(res.statusCode, res.body).to.equal(400);
    expect(refusal(res)).to.contain('wait').and.contain('/runs/schedule');
    expect(res.json<{ detail: { field?: string } }>().detail.field).to.equal('body.wait');
    expect(await runsOf(ann, sessionId)).to.deep.equal([]);
  });

  it("another account only ever waits on the run it started: naming ann's run, session or bundle tells it nothing of them", async () => {
    const sessionId = newSession();
    const pending = start(ann, { bundle_id: 'ask', session_id: sessionId, input_data: { prompt: 'ann secret' }, wait: { until: 'completed', timeout_s: 120 } });
    const annRun = await waitingRunIn(ann, sessionId);
    await command(ann, annRun, 'cancel');
    ok(await pending);

    // mal's start in ann's session, naming ann's run id: its wait answers mal's own new run.
    const answer = ok(await start(mal, { bundle_id: 'echo', session_id: sessionId, run_id: annRun, input_data: { prompt: 'mal' }, wait: { timeout_s: 60 } }));
    expect(answer.run_id).to.not.equal(annRun);
    expect(answer.run.run_id).to.equal(answer.run_id);
    expect(answer.run.output).to.deep.include({ response: 'mal' });
    expect(JSON.stringify(answer)).to.not.contain(annRun).and.not.contain('ann secret');
    // wait itself has no way to name a run.
    const named = await start(mal, { bundle_id: 'echo', wait: { run_id: annRun } });
    expect(named.statusCode).to.equal(400);
    expect(named.body).to.not.contain('ann secret');
    // ann's private bundle is not mal's to start: the same 404 as without wait, nothing waited for.
    await uploadBundleAs(k, ann, 'ann-only', echoFlow);
    const foreign = await start(mal, { bundle_id: 'ann-only', wait: { timeout_s: 60 } });
    expect(foreign.statusCode, foreign.body).to.equal(404);
    expect(foreign.body).to.equal((await start(mal, { bundle_id: 'ann-only' })).body);
    // A refused start gives its wait's place back (the cap is 1 here).
    expect(ok(await start(mal, { bundle_id: 'echo', input_data: { prompt: 'still' }, wait: { timeout_s: 60 } })).run.status).to.equal('completed');
  });
});
