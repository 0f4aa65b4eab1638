/**
 * The kernel side, run as a child process (see ../http/spawn-server.ts): the Keel kernel with the
 * inference plugin, configured like the engine the parent runs alone (llama threads 1, one pool
 * thread, onnx batch 32). The parent passes the admin token and model folders through the
 * environment.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildConfig, Kernel } from '@keel/kernel';
import { serveAsChild } from '../http/servers/child-protocol.js';
import { CHILD_ENV, ENGINE_SETTINGS } from './kernel-settings.js';
import { REPO_ROOT } from './workloads.js';

const token = process.env[CHILD_ENV.token];
if (!token) throw new Error(`${CHILD_ENV.token} is not set: this script runs as a child of the inference benchmark.`);
const modelsDirs = JSON.parse(process.env[CHILD_ENV.modelsDirs] ?? '[]') as string[];

const dataDir = mkdtempSync(path.join(tmpdir(), 'keel-bench-inference-'));
const { config } = buildConfig({
  server: { dataDir, logLevel: 'warn', port: 0, watchdog: { enabled: false } },
  plugins: [{
    use: '@keel/plugin-inference',
    config: {
      modelsDirs,
      llama: { threads: ENGINE_SETTINGS.llamaThreads, contextSize: ENGINE_SETTINGS.contextSize, poolThreads: 1 },
      onnx: { threads: ENGINE_SETTINGS.onnxThreads, batchSize: ENGINE_SETTINGS.onnxBatchSize, poolThreads: 1 },
    },
  }],
});
// Only the token: a KEEL_* setting of the caller's shell has no business in a benchmark.
const kernel = await Kernel.boot({ config, mode: 'server', baseDir: REPO_ROOT, env: { KEEL_ADMIN_TOKEN: token } });
const { port } = await kernel.listen(0, '127.0.0.1');
serveAsChild(port, async () => {
  await kernel.stop();
  rmSync(dataDir, { recursive: true, force: true });
});
