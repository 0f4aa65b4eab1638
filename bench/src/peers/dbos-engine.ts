/**
 * DBOS 5.3.0 (npm `@dbos-inc/dbos-sdk`) on a throwaway PostgreSQL 15 cluster (./postgres.ts): the
 * app bench/peers/dbos-app.mjs in its own Node process, two workflows behind a node:http server. A
 * run is one `POST /<workflow>`, answered with the workflow's result once it has finished.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KernelHttp } from '../steps/client.js';
import { PEERS_DIR, type Engine, type RunningEngine } from './engine.js';
import { postgresMissing, startPostgres } from './postgres.js';
import { logTail, spawnChild } from './procs.js';

const SDK_DIR = path.join(PEERS_DIR, 'node_modules', '@dbos-inc', 'dbos-sdk');
const APP = path.join(PEERS_DIR, 'dbos-app.mjs');
const EXPECTED = JSON.stringify({ steps: 10, total: 55 });

export function dbosEngine(pgBin: string): Engine {
  return {
    label: 'DBOS',
    missing() {
      if (!existsSync(SDK_DIR)) return `DBOS is not installed (no ${path.relative(process.cwd(), SDK_DIR)}): run \`npm install --prefix bench/peers\` to measure it.`;
      return postgresMissing(pgBin);
    },
    async start(clients: number): Promise<RunningEngine> {
      const postgres = await startPostgres(pgBin);
      const dir = mkdtempSync(path.join(tmpdir(), 'keel-bench-dbos-'));
      const stopPostgres = async () => {
        await postgres.stop();
        rmSync(dir, { recursive: true, force: true });
      };
      let app;
      try {
        app = await spawnChild(process.execPath, [APP, '0'], { cwd: PEERS_DIR, logFile: path.join(dir, 'app.log'), readyLine: true, env: { ...process.env, DBOS_SYSTEM_DATABASE_URL: postgres.url('keel_bench_dbos') } });
      } catch (err) {
        const log = logTail(path.join(dir, 'app.log'));
        await stopPostgres();
        throw new Error(`${(err as Error).message}${log ? `\nlast lines of its log:\n${log}` : ''}`, { cause: err });
      }
      const started = app;
      const client = new KernelHttp(app.port, '', clients + 2);
      return {
        async run(kind) {
          const { status, text } = await client.send('POST', `/${kind}`);
          if (status !== 200 || text !== EXPECTED) throw new Error(`DBOS's ${kind} workflow answered ${status}: ${text}`);
        },
        pids: () => [started.process.pid!, postgres.postmasterPid],
        describe: (kind) => `${kind === 'recorded' ? 'a workflow of 10 DBOS.runStep' : 'a workflow of 10 in-memory steps'}; one POST to the app's node:http server`,
        async stop() {
          client.close();
          await started.stop();
          await stopPostgres();
        },
      };
    },
  };
}
