/**
 * `POST /runs/start` with `wait` on `keel serve --no-runner` beside a `keel runner` (issue 21 item 3):
 * the runs execute in the runner process, and the server's wait hears their ends (and waits for input)
 * through the live bus's files, with no polling of its own.
 */
import { expect } from 'chai';
import { askUserFlow, bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { ServedKeel, until, type RunRecord } from './helpers/gateway-runs.js';

const PLUGINS = [{ use: '@keel/plugin-inference' }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-workspaces' }, { use: '@keel/plugin-gateway-runs' }];

/** start → end with `response` = the prompt. */
const echoFlow = {
  id: 'echo',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }), node({ id: 'end', type: 'on_flow_end', inputs: ['response'] })],
  edges: edges('start -> end', 'start.prompt -> end.response'),
};

type WaitAnswer = { run_id: string; run: RunRecord & { waiting: { reason: string } | null }; wait: { until: string; reached: boolean } };

describe('durable21 wait: a start with wait on keel serve --no-runner, the run executed by keel runner', function () {
  this.timeout(240_000);
  const keel = new ServedKeel();
  before(async () => {
    keel.configure(PLUGINS);
    await keel.start(['--no-runner']);
    await keel.startRunner();
    for (const [id, flow] of [['echo', echoFlow], ['ask', askUserFlow()]] as const) {
      const body = multipart({}, { name: `${id}.flow`, bytes: bundle(id, '1.0.0', flow) });
      expect((await keel.call('POST', '/api/gateway/bundles/upload', body.payload, body.headers)).status).to.equal(201);
    }
  });
  after(() => keel.dispose());

  const start = async (body: Record<string, unknown>): Promise<WaitAnswer> => {
    const res = await keel.call('POST', '/api/gateway/runs/start', body);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as unknown as WaitAnswer;
  };

  it('a run the runner completes answers in one request with status completed and its output', async () => {
    const answer = await start({ bundle_id: 'echo', input_data: { prompt: 'from the runner' }, wait: { timeout_s: 120 } });
    expect(answer.wait).to.deep.equal({ until: 'completed', reached: true });
    expect(answer.run.status).to.equal('completed');
    expect(answer.run.output).to.deep.include({ response: 'from the runner' });
    expect(answer.run).to.deep.equal(await keel.run(answer.run_id));
  });

  it('a cancel sent to the server while its start waits ends the wait with status cancelled', async () => {
    const sessionId = 'runner-cancel';
    const pending = start({ bundle_id: 'ask', session_id: sessionId, wait: { until: 'completed', timeout_s: 120 } });
    const rows = await until(async () => (await keel.call('GET', `/api/gateway/runs?session_id=${sessionId}`)).body.items as Array<{ run_id: string; status: string }>, { what: 'the run to wait for its answer', ok: (r) => r.length === 1 && r[0]!.status === 'waiting', deadline: 60_000 });
    expect((await keel.call('POST', '/api/gateway/commands', { command_id: crypto.randomUUID(), run_id: rows[0]!.run_id, type: 'cancel', payload: {} })).status).to.equal(200);
    const answer = await pending;
    expect(answer.run_id).to.equal(rows[0]!.run_id);
    expect(answer.run.status).to.equal('cancelled');
    expect(answer.wait.reached).to.equal(true);
  });

  it("'waiting' answers at the ask_user wait; 'completed' times out with reached false", async () => {
    const waiting = await start({ bundle_id: 'ask', wait: { until: 'waiting', timeout_s: 60 } });
    expect(waiting.wait).to.deep.equal({ until: 'waiting', reached: true });
    expect(waiting.run.status).to.equal('waiting');
    expect(waiting.run.waiting).to.deep.include({ reason: 'user' });
    const timedOut = await start({ bundle_id: 'ask', wait: { until: 'completed', timeout_s: 1.5 } });
    expect(timedOut.wait).to.deep.equal({ until: 'completed', reached: false });
    expect(['running', 'waiting']).to.include(timedOut.run.status);
  });
});
