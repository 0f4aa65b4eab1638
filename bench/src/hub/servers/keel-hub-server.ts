/**
 * The keel side, run as a child process: the kernel as `keel serve` boots it with the hub plugin
 * (`@keel/plugin-hub`, mounted at `/hub`) on a fresh data directory; its real routes and live
 * socket, the kernel's full middleware. The parent passes the admin token (the hub admin key)
 * through the environment and sets the hub up over HTTP like any client would. Its one
 * operator-configurable limit in the way is turned off: the per-seat posting pace.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildConfig, Kernel } from '@keel/kernel';
import { serveAsChild } from '../../http/servers/child-protocol.js';
import { REPO_ROOT } from '../../ledger/kit.js';
import { HUB_TOKEN_ENV } from '../settings.js';

const token = process.env[HUB_TOKEN_ENV];
if (!token) throw new Error(`${HUB_TOKEN_ENV} is not set: this script runs as a child of the hub benchmark.`);

const dataDir = mkdtempSync(path.join(tmpdir(), 'keel-bench-hub-'));
const { config } = buildConfig({
  server: { dataDir, logLevel: 'warn', port: 0, watchdog: { enabled: false } },
  // BENCH_HUB_PLUGIN: an absolute path to another build of the hub plugin (to measure a candidate fix).
  // The per-seat posting pace (60/min by default) is off: one seat posts 200 messages/s here.
  plugins: [{ use: process.env.BENCH_HUB_PLUGIN || '@keel/plugin-hub', config: { postRate: { perMinute: 0 } } }],
});
// Only the token: a KEEL_* setting of the caller's shell has no business in a benchmark.
const kernel = await Kernel.boot({ config, mode: 'server', baseDir: REPO_ROOT, env: { KEEL_ADMIN_TOKEN: token } });
const { port } = await kernel.listen(0, '127.0.0.1');
serveAsChild(port, async () => {
  await kernel.stop();
  rmSync(dataDir, { recursive: true, force: true });
});
