/**
 * The server, run as a child process (../http/spawn-server.ts): the kernel as `keel serve` runs
 * it with the runs stack (inference, ledger, workspaces, gateway-runs; the runner in process) and the
 * plugins the measured flow needs, on a fresh data directory. The parent passes the admin token and
 * the plugin list through the environment.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildConfig, Kernel } from '@keel/kernel';
import { serveAsChild } from '../http/servers/child-protocol.js';
import { REPO_ROOT } from '../ledger/kit.js';
import { STEPS_PLUGINS_ENV, STEPS_TOKEN_ENV } from './settings.js';
import { RUNS_PLUGINS } from './steps-flow.js';

const token = process.env[STEPS_TOKEN_ENV];
if (!token) throw new Error(`${STEPS_TOKEN_ENV} is not set: this script runs as a child of the steps benchmark.`);

const plugins = JSON.parse(process.env[STEPS_PLUGINS_ENV] ?? JSON.stringify(RUNS_PLUGINS)) as string[];
const dataDir = mkdtempSync(path.join(tmpdir(), 'keel-bench-steps-'));
const { config } = buildConfig({
  server: { dataDir, logLevel: 'warn', port: 0, watchdog: { enabled: false } },
  plugins: plugins.map((use) => ({ use })),
});
// Only the token: a KEEL_* setting of the caller's shell has no business in a benchmark.
const kernel = await Kernel.boot({ config, mode: 'server', baseDir: REPO_ROOT, env: { KEEL_ADMIN_TOKEN: token } });
const { port } = await kernel.listen(0, '127.0.0.1');
serveAsChild(port, async () => {
  await kernel.stop();
  rmSync(dataDir, { recursive: true, force: true });
});
