/**
 * Issue 21 item 4: a small ledger's stream is read on the main thread, so a stream opened while its
 * run's end is being committed can read the terminal mark at once. Its `done` must still come only
 * once the process was told the end is durable: a client that reads the run after `done` sees it
 * ended, never still running. A real `keel serve` process, as the steps benchmark runs it (that
 * benchmark caught it: "running after done").
 */
import { expect } from 'chai';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { ServedKeel } from './helpers/gateway-runs.js';
import { readSse } from './helpers/sse.js';

const RUNS = 200;

describe('durable21 hot: a ledger stream and its run', function () {
  this.timeout(600_000);
  const keel = new ServedKeel();

  before(async () => {
    keel.configure([{ use: '@keel/plugin-inference' }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-workspaces' }, { use: '@keel/plugin-gateway-runs' }]);
    await keel.start();
    const steps = Array.from({ length: 10 }, (_, i) => node({ id: `v${i}`, type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: `v${i}`, value: i } } }));
    const flow = {
      id: 'main',
      nodes: [node({ id: 'start', type: 'on_flow_start', outputs: [] }), ...steps, node({ id: 'end', type: 'on_flow_end' })],
      edges: edges(...['start', ...steps.map((s) => s.id), 'end'].slice(1).map((to, i, all) => `${i === 0 ? 'start' : all[i - 1]} -> ${to}`)),
    };
    const body = multipart({ overwrite: 'true' }, { name: 'hot-stream.flow', bytes: bundle('hot-stream', '1.0.0', flow) });
    const uploaded = await keel.call('POST', '/api/gateway/bundles/upload', body.payload, body.headers);
    expect(uploaded.status).to.equal(201);
  });
  after(() => keel.dispose());

  it(`shows the run ended once its stream said done (${RUNS} runs, each stream opened right after its start)`, async () => {
    for (let i = 0; i < RUNS; i++) {
      const started = await keel.call('POST', '/api/gateway/runs/start', { bundle_id: 'hot-stream', flow_id: 'main', input_data: {} });
      const runId = started.body.run_id as string;
      const stream = await readSse(`${keel.url}/api/gateway/runs/${runId}/ledger/stream`, { token: keel.adminToken, deadline: 60_000 });
      expect(stream.events.map((e) => e.event)).to.include('done');
      const run = await keel.run(runId);
      expect(run.status, `run ${i + 1} after done`).to.equal('completed');
    }
  });
});
