/**
 * The kernel the API side calls: the inference plugin (owner of `/v1`) and the voice plugin on its
 * defaults (speech: the local espeak engine), listening on a free port of 127.0.0.1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildConfig, Kernel } from '@keel/kernel';
import { REPO_ROOT } from '../ledger/kit.js';

export async function bootVoiceKernel(token: string): Promise<{ port: number; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'keel-bench-voice-'));
  const { config } = buildConfig({
    server: { dataDir, logLevel: 'warn', port: 0, watchdog: { enabled: false } },
    plugins: [{ use: '@keel/plugin-inference', config: {} }, { use: '@keel/plugin-voice', config: {} }],
  });
  // Only the token: a KEEL_* setting of the caller's shell has no business in a benchmark.
  const kernel = await Kernel.boot({ config, mode: 'server', baseDir: REPO_ROOT, env: { KEEL_ADMIN_TOKEN: token } });
  const { port } = await kernel.listen(0, '127.0.0.1');
  return {
    port,
    stop: async () => {
      await kernel.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
