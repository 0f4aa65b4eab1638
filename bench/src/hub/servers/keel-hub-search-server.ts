/**
 * The keel side of the hub search benchmark, run as a child process: the kernel with the hub and,
 * when the embedder is there, the inference plugin serving the real glove-sif-50d model (the hub's
 * semantic search embeds with it). The per-seat posting pace is off so the corpus loads quickly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildConfig, Kernel } from '@keel/kernel';
import { serveAsChild } from '../../http/servers/child-protocol.js';
import { REPO_ROOT } from '../../ledger/kit.js';
import { HUB_TOKEN_ENV, SEARCH_EMBEDDINGS_DIR_ENV } from '../settings.js';

const token = process.env[HUB_TOKEN_ENV];
if (!token) throw new Error(`${HUB_TOKEN_ENV} is not set: this script runs as a child of the hub search benchmark.`);
const embeddingsDir = process.env[SEARCH_EMBEDDINGS_DIR_ENV];

const dataDir = mkdtempSync(path.join(tmpdir(), 'keel-bench-hub-search-'));
const hub = { use: process.env.BENCH_HUB_PLUGIN || '@keel/plugin-hub', config: { postRate: { perMinute: 0 } } };
const inference = { use: '@keel/plugin-inference', config: { modelsDirs: [embeddingsDir], bundledModels: false, defaultEmbeddingModel: 'local/glove-sif-50d', defaultChatModel: 'local/glove-sif-50d' } };
const { config } = buildConfig({
  server: { dataDir, logLevel: 'warn', port: 0, watchdog: { enabled: false } },
  plugins: embeddingsDir ? [inference, hub] : [hub],
});
const kernel = await Kernel.boot({ config, mode: 'server', baseDir: REPO_ROOT, env: { KEEL_ADMIN_TOKEN: token } });
const { port } = await kernel.listen(0, '127.0.0.1');
serveAsChild(port, async () => {
  await kernel.stop();
  rmSync(dataDir, { recursive: true, force: true });
});
