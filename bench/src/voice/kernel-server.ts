/**
 * The kernel side, run as a child process (see ../http/spawn-server.ts): the Keel kernel with the
 * inference plugin (owner of `/v1`) and the voice plugin on its defaults (speech: the local espeak
 * engine). The parent passes the admin token through the environment.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildConfig, Kernel } from '@keel/kernel';
import { serveAsChild } from '../http/servers/child-protocol.js';
import { REPO_ROOT } from '../ledger/kit.js';
import { CHILD_ENV } from './settings.js';

const token = process.env[CHILD_ENV.token];
if (!token) throw new Error(`${CHILD_ENV.token} is not set: this script runs as a child of the voice benchmark.`);

const dataDir = mkdtempSync(path.join(tmpdir(), 'keel-bench-voice-'));
const { config } = buildConfig({
  server: { dataDir, logLevel: 'warn', port: 0, watchdog: { enabled: false } },
  plugins: [{ use: '@keel/plugin-inference', config: {} }, { use: '@keel/plugin-voice', config: {} }],
});
const kernel = await Kernel.boot({ config, mode: 'server', baseDir: REPO_ROOT, env: { KEEL_ADMIN_TOKEN: token } });
const { port } = await kernel.listen(0, '127.0.0.1');
serveAsChild(port, async () => {
  await kernel.stop();
  rmSync(dataDir, { recursive: true, force: true });
});
