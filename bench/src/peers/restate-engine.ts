/**
 * Restate 1.7.12 (npm `@restatedev/restate-server`, its single-node default configuration: every
 * role in one process, RocksDB WAL fsync on) with the service bench/peers/restate-service.mjs
 * (SDK 1.17.2) in its own Node process. The harness registers the service's endpoint with the admin
 * API; a run is one `POST /PeerBench/<handler>` to the ingress, which answers with the result.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KernelHttp } from '../steps/client.js';
import { PEERS_DIR, type Engine, type RunningEngine } from './engine.js';
import { freePort, logTail, spawnChild, waitFor, type Child } from './procs.js';

const SERVER_BIN = path.join(PEERS_DIR, 'node_modules', '@restatedev', `restate-server-${process.platform}-${process.arch}`, 'bin', 'restate-server');
const SDK_DIR = path.join(PEERS_DIR, 'node_modules', '@restatedev', 'restate-sdk');
const SERVICE = path.join(PEERS_DIR, 'restate-service.mjs');
const EXPECTED = JSON.stringify({ steps: 10, total: 55 });

export const restateEngine: Engine = {
  label: 'Restate',
  missing() {
    if (existsSync(SERVER_BIN) && existsSync(SDK_DIR)) return null;
    return `Restate is not installed (no ${path.relative(process.cwd(), existsSync(SERVER_BIN) ? SDK_DIR : SERVER_BIN)}): run \`npm install --prefix bench/peers\` to measure it.`;
  },
  async start(clients: number): Promise<RunningEngine> {
    const dir = mkdtempSync(path.join(tmpdir(), 'keel-bench-restate-'));
    const [ingress, admin, fabric] = [await freePort(), await freePort(), await freePort()];
    const children: Child[] = [];
    const stopAll = async () => {
      for (const child of [...children].reverse()) await child.stop();
      rmSync(dir, { recursive: true, force: true });
    };
    try {
      const server = await spawnChild(SERVER_BIN, ['--base-dir', path.join(dir, 'data'), '--node-name', 'bench', '--no-logo', '--listen-mode', 'tcp'], {
        logFile: path.join(dir, 'restate-server.log'),
        readyLine: false,
        env: {
          PATH: process.env.PATH,
          RESTATE_DISABLE_TELEMETRY: 'true',
          RESTATE_LOG_DISABLE_ANSI_CODES: 'true',
          RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
          RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
          RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
          RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${fabric}/`,
        },
      });
      children.push(server);
      const adminHttp = new KernelHttp(admin, '');
      try {
        await waitFor('restate-server did not answer its admin health check', async () => (await adminHttp.send('GET', '/health')).status === 200);
        const service = await spawnChild(process.execPath, [SERVICE, '0'], { cwd: PEERS_DIR, logFile: path.join(dir, 'service.log'), readyLine: true, env: { ...process.env, RESTATE_LOGGING: 'WARN' } });
        children.push(service);
        const registered = await adminHttp.send('POST', '/deployments', { uri: `http://127.0.0.1:${service.port}` });
        if (registered.status < 200 || registered.status >= 300) throw new Error(`Restate refused the service's registration (${registered.status}): ${registered.text}`);
      } finally {
        adminHttp.close();
      }
      const client = new KernelHttp(ingress, '', clients + 2);
      // The admin answers before the partitions are led: wait until the ingress runs the service.
      await waitFor('Restate did not run the registered service', async () => {
        const { status, text } = await client.send('POST', '/PeerBench/recorded', {});
        return status === 200 && text === EXPECTED;
      }, 60_000, 250);
      return {
        async run(kind) {
          const { status, text } = await client.send('POST', `/PeerBench/${kind}`, {});
          if (status !== 200 || text !== EXPECTED) throw new Error(`Restate's ${kind} handler answered ${status}: ${text}`);
        },
        pids: () => children.map((c) => c.process.pid!),
        describe: (kind) => `${kind === 'recorded' ? '10 ctx.run' : '10 in-memory steps'}; one POST to the ingress (waits for the result)`,
        async stop() {
          client.close();
          await stopAll();
        },
      };
    } catch (err) {
      const logs = ['restate-server.log', 'service.log'].map((f) => logTail(path.join(dir, f))).filter(Boolean).join('\n');
      await stopAll();
      throw new Error(`${(err as Error).message}${logs ? `\nlast lines of its logs:\n${logs}` : ''}`, { cause: err });
    }
  },
};
