/**
 * The Keel relay, run as a child: a real kernel with `@keel/plugin-relay` alone (as `keel serve
 * --config config/relay.json` boots it), one hosted account pointing at the raw upstream, the
 * gate's rate limits and per-IP slots raised so the benchmark measures the relay and not its
 * refusals, and traffic logs on as shipped (the plugin's defaults, into the kernel's data folder).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildConfig, Kernel } from '@keel/kernel';
import { serveAsChild } from '../../http/servers/child-protocol.js';
import { REPO_ROOT } from '../../ledger/kit.js';
import { CHILD_ENV } from '../settings.js';

const base = process.env[CHILD_ENV.upstreamBase];
const key = process.env[CHILD_ENV.upstreamKey];
const token = process.env[CHILD_ENV.relayToken];
if (!base || !key || !token) throw new Error(`${CHILD_ENV.upstreamBase}, ${CHILD_ENV.upstreamKey} and ${CHILD_ENV.relayToken} must be set: this script runs as a child of the relay benchmark.`);

/** Far above what the benchmark sends (a few thousand calls a second from one address). */
const UNLIMITED = 100_000_000;

const dataDir = mkdtempSync(path.join(tmpdir(), 'keel-bench-relay-'));
const { config } = buildConfig({
  server: { dataDir, logLevel: 'warn', port: 0 },
  plugins: [{
    // BENCH_RELAY_PLUGIN: an absolute path to another build of the relay plugin (to measure a candidate fix).
    use: process.env.BENCH_RELAY_PLUGIN || '@keel/plugin-relay',
    config: {
      gate: { rateLimitPerMinute: UNLIMITED, rateLimitBurst: UNLIMITED, concurrentRequestsPerIp: 4096 },
      hosted: { accounts: [{ slug: 'bench', baseUrl: base, apiKey: key }] },
      cli: { enabled: false },
    },
  }],
});
// Only the relay token: a KEEL_* setting of the caller's shell has no business in a benchmark.
process.env.RELAY_TOKEN = token;
const kernel = await Kernel.boot({ config, mode: 'server', baseDir: REPO_ROOT, env: { RELAY_TOKEN: token } });
const { port } = await kernel.listen(0, '127.0.0.1');
serveAsChild(port, async () => {
  await kernel.stop();
  rmSync(dataDir, { recursive: true, force: true });
});
