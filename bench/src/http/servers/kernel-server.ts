/** Subject (c): the full Keel kernel (core plugin only), serving its real `/api/health`. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildConfig, Kernel } from '@keel/kernel';
import { serveAsChild } from './child-protocol.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'keel-bench-'));
const { config } = buildConfig({ server: { dataDir, logLevel: 'warn', port: 0 } });
// An empty env: a KEEL_ADMIN_TOKEN of the caller's shell has no business in a benchmark.
const kernel = await Kernel.boot({ config, mode: 'server', env: {} });
const { port } = await kernel.listen(0, '127.0.0.1');
serveAsChild(port, async () => {
  await kernel.stop();
  rmSync(dataDir, { recursive: true, force: true });
});
