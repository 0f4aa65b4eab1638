/**
 * The code node in a real `keel serve` process with the plugins of `config/default.json` (which loads
 * `@keel/plugin-code`): a flow with a code node runs, Pyodide loads from the installed package (this
 * machine has no internet), and the process still stops on SIGTERM (exit code 0) with a sandbox
 * worker loaded.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startServer, type ServerProcess } from './helpers/cli.js';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { until, type RunRecord } from './helpers/gateway-runs.js';
import { repoRoot, tempDir } from './helpers/paths.js';

describe('flow: the code node in a served keel (config/default.json)', function () {
  this.timeout(300_000);
  const tmp = tempDir();
  const dataDir = path.join(tmp.dir, 'data');
  const configFile = path.join(tmp.dir, 'keel.json');
  let server: ServerProcess | undefined;
  let token = '';
  const call = async (method: string, url: string, body?: Buffer | Record<string, unknown>, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server!.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body && !Buffer.isBuffer(body) ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  before(async () => {
    const defaults = JSON.parse(readFileSync(path.join(repoRoot, 'config', 'default.json'), 'utf8')) as { plugins: Array<{ use: string }> };
    expect(defaults.plugins.map((p) => p.use)).to.include('@keel/plugin-code');
    writeFileSync(configFile, JSON.stringify({ server: { port: 0, logLevel: 'warn' }, plugins: defaults.plugins }));
    server = await startServer(['--config', configFile, '--data-dir', dataDir]);
    token = readFileSync(path.join(dataDir, 'auth', 'admin.token'), 'utf8').trim();
  });
  after(async () => {
    await server?.stop('SIGKILL');
    tmp.remove();
  });

  it('runs a code node, then stops on SIGTERM with its sandbox worker loaded', async () => {
    const flow = {
      id: 'served',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: ['words'] }),
        node({ id: 'code', type: 'code', inputs: ['words', 'permissions'], outputs: ['output', 'success'], data: { codeBody: 'return {"count": len(words), "upper": [w.upper() for w in words]}' } }),
      ],
      edges: edges('start -> code', 'start.words -> code.words'),
    };
    const body = multipart({}, { name: 'served.flow', bytes: bundle('served', '1.0.0', flow) });
    expect((await call('POST', '/api/gateway/bundles/upload', body.payload, body.headers)).status).to.equal(201);
    const started = await call('POST', '/api/gateway/runs/start', { bundle_id: 'served', input_data: { words: ['a', 'bc'] } });
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    const runId = String(started.body.run_id);
    const run = await until(async () => (await call('GET', `/api/gateway/runs/${runId}`)).body as unknown as RunRecord, (r) => r.status !== 'running' && r.status !== 'waiting', 240_000);
    expect(run.status, String(run.error)).to.equal('completed');
    expect(run.output).to.deep.equal({ count: 2, upper: ['A', 'BC'], success: true });

    const exited = server!.stop('SIGTERM');
    const deadline = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 120_000).unref());
    expect(await Promise.race([exited, deadline])).to.equal(0);
    server = undefined;
  });
});
