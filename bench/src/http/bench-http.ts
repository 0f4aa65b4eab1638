/**
 * The HTTP benchmark: each server in turn, alone in its own child process, under the same
 * autocannon load from this process. The server order rotates each round so that drift (thermal,
 * noisy neighbours) does not always land on the same server.
 */
import path from 'node:path';
import { checkHealthShape } from './check-health.js';
import { measure, type Measurement } from './measure.js';
import { measurementLine, settingsLine, summaryTable } from './report.js';
import { SERVERS, type ServerId } from './server-catalogue.js';
import { settingsFromEnv, type HttpBenchSettings } from './settings.js';
import { startServer } from './spawn-server.js';
import { summarize, type HttpBenchSummary } from './summarize.js';

export async function benchHttp(settings: HttpBenchSettings = settingsFromEnv()): Promise<HttpBenchSummary> {
  console.log(settingsLine(settings));
  const execArgv = settings.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(settings.cpuProfDir)}`] : [];
  const runs: Partial<Record<ServerId, Measurement[]>> = {};
  for (let round = 0; round < settings.rounds; round++) {
    for (const id of rotate(settings.servers, round)) {
      const spec = SERVERS[id];
      const server = await startServer(spec.script, execArgv);
      try {
        const url = `http://127.0.0.1:${server.port}/api/health`;
        await checkHealthShape(url);
        const m = await measure(url, server, settings);
        (runs[id] ??= []).push(m);
        console.log(measurementLine(round + 1, spec.label, m));
      } finally {
        await server.stop();
      }
    }
  }
  const summary = summarize(runs);
  console.log(`\n${summaryTable(summary)}`);
  return summary;
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const k = items.length ? by % items.length : 0;
  return [...items.slice(k), ...items.slice(0, k)];
}
