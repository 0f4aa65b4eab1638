import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startServer, type ServerProcess } from './helpers/cli.js';
import { bundle, edges, node } from './helpers/flow-builder.js';
import { tempDir } from './helpers/paths.js';

interface LedgerItem {
  cursor: number;
  status: string;
  step_id: string;
  idempotency_key: string | null;
  effect: { type: string } | null;
}

describe('crash safety: kill -9 mid-run, restart, the run continues from its ledger', function () {
  this.timeout(60_000);
  const tmp = tempDir();
  const dataDir = path.join(tmp.dir, 'data');
  const configFile = path.join(tmp.dir, 'keel.json');
  let server: ServerProcess | undefined;
  let token = '';

  before(() => {
    writeFileSync(configFile, JSON.stringify({ server: { port: 0, logLevel: 'warn' }, plugins: [{ use: '@keel/plugin-inference' }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-gateway-runs' }] }));
  });
  after(async () => {
    await server?.stop('SIGKILL');
    tmp.remove();
  });

  const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server!.url}${url}`, { method, headers: { authorization: `Bearer ${token}`, ...(body && !Buffer.isBuffer(body) ? { 'content-type': 'application/json' } : {}), ...headers }, body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const ledger = async (runId: string) => (await call('GET', `/api/gateway/runs/${runId}/ledger?limit=2000`)).body.items as LedgerItem[];

  it('loses no acknowledged record and runs no completed effect twice', async () => {
    server = await startServer(['--config', configFile, '--data-dir', dataDir]);
    token = readFileSync(path.join(dataDir, 'auth', 'admin.token'), 'utf8').trim();
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
    expect((await call('POST', '/api/gateway/bundles/upload', upload, { 'content-type': `multipart/form-data; boundary=${boundary}` })).status).to.equal(201);
    const runId = (await call('POST', '/api/gateway/runs/start', { bundle_id: 'two-calls', input_data: { _runtime: { provider: 'local', model: 'keel-tiny-chat' } } })).body.run_id as string;

    // Wait until the first call is durably recorded and the run sits in its wait.
    let before: LedgerItem[] = [];
    for (let i = 0; i < 200; i++) {
      const run = (await call('GET', `/api/gateway/runs/${runId}`)).body;
      before = await ledger(runId);
      if (run.status === 'waiting' && before.some((r) => r.status === 'waiting')) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(before.filter((r) => r.status === 'completed' && r.effect?.type === 'llm_call')).to.have.length(1);

    await server.stop('SIGKILL');
    server = await startServer(['--config', configFile, '--data-dir', dataDir]);

    let run: Record<string, unknown> = {};
    for (let i = 0; i < 400 && run.status !== 'completed'; i++) {
      run = (await call('GET', `/api/gateway/runs/${runId}`)).body;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(run.status).to.equal('completed');
    expect((run.output as Record<string, unknown>).response).to.equal('The capital of France is Paris. The capital of Italy is Rome.');

    const after = await ledger(runId);
    expect(after.slice(0, before.length)).to.deep.equal(before);
    expect(after.map((r) => r.cursor)).to.deep.equal(after.map((_, i) => i + 1));
    const completedKeys = after.filter((r) => r.status === 'completed' && r.idempotency_key && !r.idempotency_key.startsWith('system:')).map((r) => r.idempotency_key);
    expect(new Set(completedKeys).size).to.equal(completedKeys.length);
    expect(after.filter((r) => r.status === 'completed' && r.effect?.type === 'llm_call')).to.have.length(2);
  });
});
