import { createServer, type Server } from 'node:http';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { gatewayRuns, ServedKeel, until, type LedgerItem } from './helpers/gateway-runs.js';

/**
 * A stand-in OpenAI-compatible endpoint (a fake is fine inside a test): each model answers from a
 * script of statuses (`[503, 200]` = fail once, then answer), then keeps its last entry.
 */
class FlakyEndpoint {
  readonly requests: Array<{ model: string; status: number }> = [];
  private readonly scripts = new Map<string, number[]>();
  private server: Server | undefined;
  url = '';

  script(model: string, statuses: number[]): void {
    this.scripts.set(model, [...statuses]);
  }

  count(model: string): number {
    return this.requests.filter((r) => r.model === model).length;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const model = String((JSON.parse(body || '{}') as { model?: string }).model ?? '');
        const script = this.scripts.get(model) ?? [200];
        const status = script.length > 1 ? script.shift()! : script[0]!;
        this.requests.push({ model, status });
        res.writeHead(status, { 'content-type': 'application/json' });
        if (status === 200) {
          res.end(JSON.stringify({ id: 'cmpl-1', object: 'chat.completion', created: 0, model, choices: [{ index: 0, message: { role: 'assistant', content: `answer from ${model}` }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } }));
        } else {
          const message = status === 404 ? `model '${model}' not found` : status === 400 ? 'bad request' : 'overloaded, try again';
          res.end(JSON.stringify({ error: { message, type: 'error' } }));
        }
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    const address = this.server.address() as { port: number };
    this.url = `http://127.0.0.1:${address.port}/v1`;
  }

  stop(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

const MODELS = ['flaky', 'gone', 'refused', 'down', 'slow-down', 'crashy'];

/** start → llm_call `ask` → end; `wait` (seconds) adds a wait_until after the call. */
function callFlow(wait = 0) {
  const nodes = [
    node({ id: 'start', type: 'on_flow_start', outputs: [] }),
    node({ id: 'ask', type: 'llm_call', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'Hello there', temperature: 0 } } }),
    ...(wait ? [node({ id: 'pause', type: 'wait_until', inputs: ['duration'], data: { pinDefaults: { duration: wait } } })] : []),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
  ];
  const exec = wait ? ['start -> ask', 'ask -> pause', 'pause -> end'] : ['start -> ask', 'ask -> end'];
  return { id: 'call', nodes, edges: edges(...exec, 'ask.response -> end.response') };
}

const llmRecords = (items: LedgerItem[]) => items.filter((i) => i.effect?.type === 'llm_call');

describe('effect retries (reference §3.5): attempts, backoff, permanent errors, cancel in the backoff', function () {
  this.timeout(180_000);
  const endpoint = new FlakyEndpoint();
  let k: TestKernel;
  const { uploadBundle, startRun, getRun, ledger } = gatewayRuns(() => k);

  before(async () => {
    await endpoint.start();
    k = await createTestKernel({
      plugins: [
        { plugin: inferencePlugin, config: { endpoints: [{ name: 'fake', baseUrl: endpoint.url, models: MODELS }] } },
        ledgerPlugin, workspacesPlugin,
        { plugin: gatewayRunsPlugin, config: { retry: { backoffBaseMs: 1000, backoffMaxMs: 1500 } } },
      ],
    });
    await uploadBundle('call', callFlow());
  });
  after(async () => {
    await k?.stop();
    await endpoint.stop();
  });

  const start = (model: string) => startRun('call', { provider: 'fake', model });
  const terminal = (id: string) => until(() => getRun(id), (r) => ['completed', 'failed', 'cancelled'].includes(r.status));

  it('retries an llm_call the provider failed transiently (503 once): attempts 1 and 2 in the ledger, then the run completes', async () => {
    endpoint.script('flaky', [503, 200]);
    const runId = await start('flaky');
    const run = await terminal(runId);
    expect(run.status).to.equal('completed');
    expect(run.output).to.deep.include({ response: 'answer from flaky' });
    expect(endpoint.count('flaky')).to.equal(2);

    const calls = llmRecords(await ledger(runId));
    expect(calls.map((r) => [r.status, r.attempt])).to.deep.equal([['started', 1], ['failed', 1], ['started', 2], ['completed', 2]]);
    const [s1, f1, s2, c2] = calls as [LedgerItem, LedgerItem, LedgerItem, LedgerItem];
    // Each attempt is its own step (a pair sharing a step id); every attempt has the effect's one key.
    expect(f1.step_id).to.equal(s1.step_id);
    expect(c2.step_id).to.equal(s2.step_id);
    expect(s2.step_id).to.not.equal(s1.step_id);
    expect(new Set(calls.map((r) => r.idempotency_key)).size).to.equal(1);
    expect((s1.effect!.payload.params as { trace_metadata: Record<string, unknown> }).trace_metadata).to.deep.equal({ step_id: s1.step_id, effect_idempotency_key: s1.idempotency_key, attempt: 1 });
    expect((s2.effect!.payload.params as { trace_metadata: Record<string, unknown> }).trace_metadata).to.deep.include({ step_id: s2.step_id, attempt: 2 });
    expect(f1.error).to.contain('overloaded, try again');
    expect(f1.result).to.deep.equal({ retryable: true, will_retry: true, max_attempts: 3, backoff_ms: 1000 });
    expect(Date.parse(s2.started_at) - Date.parse(f1.ended_at!)).to.be.at.least(950);
    expect(c2.result).to.deep.include({ content: 'answer from flaky' });
  });

  it('gives up after 3 attempts with backoffs of base × 2^n capped by backoffMaxMs, failing the run', async () => {
    endpoint.script('down', [503]);
    const runId = await start('down');
    const run = await terminal(runId);
    expect(run.status).to.equal('failed');
    expect(run.error).to.contain('overloaded, try again').and.contain('gave up after 3 attempts');
    expect(endpoint.count('down')).to.equal(3);
    const calls = llmRecords(await ledger(runId));
    expect(calls.map((r) => [r.status, r.attempt])).to.deep.equal([['started', 1], ['failed', 1], ['started', 2], ['failed', 2], ['started', 3], ['failed', 3]]);
    expect(calls.filter((r) => r.status === 'failed').map((r) => r.result)).to.deep.equal([
      { retryable: true, will_retry: true, max_attempts: 3, backoff_ms: 1000 },
      { retryable: true, will_retry: true, max_attempts: 3, backoff_ms: 1500 },
      { retryable: true, will_retry: false, max_attempts: 3, backoff_ms: null },
    ]);
    expect(Date.parse(calls[4]!.started_at) - Date.parse(calls[3]!.ended_at!)).to.be.at.least(1450);
  });

  it('fails at once, after one attempt, on errors a retry cannot fix: unknown model (404), refused request (400), unknown local model', async () => {
    endpoint.script('gone', [404]);
    endpoint.script('refused', [400]);
    for (const [model, message] of [['gone', 'does not exist'], ['refused', 'refused the request']] as const) {
      const runId = await start(model);
      const run = await terminal(runId);
      expect(run.status, model).to.equal('failed');
      expect(run.error, model).to.contain(message).and.not.contain('gave up');
      expect(endpoint.count(model), model).to.equal(1);
      const calls = llmRecords(await ledger(runId));
      expect(calls.map((r) => [r.status, r.attempt]), model).to.deep.equal([['started', 1], ['failed', 1]]);
      expect(calls[1]!.result, model).to.deep.equal({ retryable: false, will_retry: false, max_attempts: 3, backoff_ms: null });
    }
    const local = await startRun('call', { provider: 'local', model: 'no-such-model' });
    expect((await terminal(local)).status).to.equal('failed');
    expect(llmRecords(await ledger(local)).map((r) => [r.status, r.attempt])).to.deep.equal([['started', 1], ['failed', 1]]);
  });

  it('stops at once when the run is cancelled during the backoff: no further attempt', async () => {
    // Its own kernel with a 5 s backoff: the cancel lands inside it however busy the machine is.
    const patient = await createTestKernel({
      plugins: [
        { plugin: inferencePlugin, config: { endpoints: [{ name: 'fake', baseUrl: endpoint.url, models: MODELS }] } },
        ledgerPlugin, workspacesPlugin,
        { plugin: gatewayRunsPlugin, config: { retry: { backoffBaseMs: 5000, backoffMaxMs: 5000 } } },
      ],
    });
    try {
      const runs = gatewayRuns(() => patient);
      await runs.uploadBundle('call', callFlow());
      endpoint.script('slow-down', [503]);
      const runId = await runs.startRun('call', { provider: 'fake', model: 'slow-down' });
      const failed = (await until(() => runs.ledger(runId), (items) => items.some((i) => i.status === 'failed'))).find((i) => i.status === 'failed')!;
      expect(await runs.command(runId, 'cancel', { reason: 'not now' })).to.deep.include({ accepted: true });
      const run = await until(() => runs.getRun(runId), (r) => ['completed', 'failed', 'cancelled'].includes(r.status));
      expect(run).to.include({ status: 'cancelled', error: 'not now' });
      // Past the moment the retry was due: nothing else was tried.
      await until(async () => Date.now(), (now) => now > Date.parse(failed.ended_at!) + 5500, 60_000);
      expect(endpoint.count('slow-down')).to.equal(1);
      const items = await runs.ledger(runId);
      expect(llmRecords(items).map((r) => [r.status, r.attempt])).to.deep.equal([['started', 1], ['failed', 1]]);
      expect(items[items.length - 1]!.result).to.deep.include({ payload: { text: 'cancelled' } });
    } finally {
      await patient.stop();
    }
  });

  describe('after kill -9 (a real `keel serve` process)', function () {
    const keel = new ServedKeel();

    before(() => keel.configure([
      { use: '@keel/plugin-inference', config: { endpoints: [{ name: 'fake', baseUrl: endpoint.url, models: MODELS }] } },
      { use: '@keel/plugin-ledger' },
      { use: '@keel/plugin-workspaces' },
      { use: '@keel/plugin-gateway-runs', config: { retry: { backoffBaseMs: 8000, backoffMaxMs: 8000 } } },
    ]));
    after(() => keel.dispose());

    it('continues the attempts where the ledger left them, and never reruns a completed call', async () => {
      await keel.start();
      const body = multipart({}, { name: 'wait.flow', bytes: bundle('call-wait', '1.0.0', callFlow(3)) });
      await keel.call('POST', '/api/gateway/bundles/upload', body.payload, body.headers);
      endpoint.script('crashy', [503, 200]);
      const runId = (await keel.call('POST', '/api/gateway/runs/start', { bundle_id: 'call-wait', input_data: { _runtime: { provider: 'fake', model: 'crashy' } } })).body.run_id as string;

      // Killed in the 8 s backoff after attempt 1.
      const before = await until(() => keel.ledger(runId), (list) => list.some((i) => i.status === 'failed'), 60_000);
      await keel.restart();
      const afterRetry = await until(() => keel.ledger(runId), (list) => list.some((i) => i.effect?.type === 'llm_call' && i.status === 'completed'), 60_000);
      expect(afterRetry.slice(0, before.length)).to.deep.equal(before);
      expect(llmRecords(afterRetry).map((r) => [r.status, r.attempt])).to.deep.equal([['started', 1], ['failed', 1], ['started', 2], ['completed', 2]]);
      expect(Date.parse(llmRecords(afterRetry)[2]!.started_at) - Date.parse(llmRecords(afterRetry)[1]!.ended_at!)).to.be.at.least(7900);

      // Killed again in the wait after the call completed, and restarted only once the wait is due:
      // the wait fires at restart, and the completed call is reused, not rerun.
      const waiting = await until(() => keel.run(runId), (r) => r.status === 'waiting', 60_000);
      await keel.stop('SIGKILL');
      const due = Date.parse(waiting.waiting!.until!);
      await until(async () => Date.now(), (now) => now > due + 500, 60_000);
      await keel.start();
      const run = await until(() => keel.run(runId), (r) => r.status === 'completed', 60_000);
      expect(run.output).to.deep.include({ response: 'answer from crashy' });
      expect(endpoint.count('crashy')).to.equal(2);
      const all = await keel.ledger(runId);
      expect(llmRecords(all)).to.have.length(4);
      expect(all.map((r) => r.cursor)).to.deep.equal(all.map((_, i) => i + 1));
    });
  });
});
