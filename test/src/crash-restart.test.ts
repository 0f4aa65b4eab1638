import { expect } from 'chai';
import { bundle, edges, node } from './helpers/flow-builder.js';
import { ServedKeel, until } from './helpers/gateway-runs.js';

describe('crash safety: kill -9 mid-run, restart, the run continues from its ledger', function () {
  this.timeout(180_000);
  const keel = new ServedKeel();

  before(() => keel.configure([{ use: '@keel/plugin-inference' }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-workspaces' }, { use: '@keel/plugin-gateway-runs' }]));
  after(() => keel.dispose());

  it('loses no acknowledged record and runs no completed effect twice', async () => {
    await keel.start();
    const flow = {
      id: 'two-calls',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: [] }),
        node({ id: 'a', type: 'llm_call', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'What is the capital of France?', temperature: 0 } } }),
        node({ id: 'pause', type: 'wait_until', inputs: ['duration'], data: { pinDefaults: { duration: 2 } } }),
        node({ id: 'b', type: 'llm_call', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'What is the capital of Italy?', temperature: 0 } } }),
        node({ id: 'both', type: 'concat', exec: false, inputs: ['x', 'y'], outputs: ['result'] }),
        node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
      ],
      edges: edges('start -> a', 'a -> pause', 'pause -> b', 'b -> end', 'a.response -> both.x', 'b.response -> both.y', 'both.result -> end.response'),
    };
    const boundary = 'crashtest';
    const upload = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="t.flow"\r\nContent-Type: application/zip\r\n\r\n`), bundle('two-calls', '1.0.0', flow), Buffer.from(`\r\n--${boundary}--\r\n`)]);
    expect((await keel.call('POST', '/api/gateway/bundles/upload', upload, { 'content-type': `multipart/form-data; boundary=${boundary}` })).status).to.equal(201);
    const runId = (await keel.call('POST', '/api/gateway/runs/start', { bundle_id: 'two-calls', input_data: { _runtime: { provider: 'local', model: 'keel-tiny-chat' } } })).body.run_id as string;

    // Wait until the first call is durably recorded and the run sits in its wait.
    const waiting = await until(() => keel.run(runId), (r) => r.status === 'waiting', 60_000);
    const before = await keel.ledger(runId);
    expect(before.some((r) => r.status === 'waiting')).to.equal(true);
    expect(before.filter((r) => r.status === 'completed' && r.effect?.type === 'llm_call')).to.have.length(1);

    // kill -9, and start again only once the wait is due: the new process must fire it.
    await keel.stop('SIGKILL');
    const due = Date.parse(waiting.waiting!.until!);
    await until(async () => Date.now(), (now) => now > due + 500, 60_000);
    await keel.start();

    const run = await until(() => keel.run(runId), (r) => r.status === 'completed', 60_000);
    expect(run.output!.response).to.equal('The capital of France is Paris. The capital of Italy is Rome.');

    const after = await keel.ledger(runId);
    expect(after.slice(0, before.length)).to.deep.equal(before);
    expect(after.map((r) => r.cursor)).to.deep.equal(after.map((_, i) => i + 1));
    const completedKeys = after.filter((r) => r.status === 'completed' && r.idempotency_key && !r.idempotency_key.startsWith('system:')).map((r) => r.idempotency_key);
    expect(new Set(completedKeys).size).to.equal(completedKeys.length);
    expect(after.filter((r) => r.status === 'completed' && r.effect?.type === 'llm_call')).to.have.length(2);
  });
});
