/**
 * The HTTP benchmark: each server in turn, alone in its own child process, under the same
 * autocannon load from this process. The server order rotates each round so that drift (thermal,
 * noisy neighbours) does not always land on the same server.
 */
import { measureRounds } from '../common/rounds.js';
import { cpuProfArgs } from '../common/server-settings.js';
import { checkHealthShape } from './check-health.js';
import { measure, type Measurement } from './measure.js';
import { measurementLine, settingsLine, summaryTable } from './report.js';
import { SERVERS, type ServerId } from './server-catalogue.js';
import { settingsFromEnv, type HttpBenchSettings } from './settings.js';
import { startServer } from './spawn-server.js';
import { summarize, type HttpBenchSummary } from './summarize.js';

export async function benchHttp(settings: HttpBenchSettings = settingsFromEnv()): Promise<HttpBenchSummary> {
  console.log(settingsLine(settings));
  const execArgv = cpuProfArgs(settings.cpuProfDir);
  const runs = await measureRounds(settings.rounds, settings.servers, (id) => measureServer(id, settings, execArgv), (round, id, m) => measurementLine(round, SERVERS[id].label, m));
  const summary = summarize(runs);
  console.log(`\n${summaryTable(summary)}`);
  return summary;
}

async function measureServer(id: ServerId, settings: HttpBenchSettings, execArgv: string[]): Promise<Measurement> {
  const server = await startServer(SERVERS[id].script, execArgv);
  try {
    const url = `http://127.0.0.1:${server.port}/api/health`;
    await checkHealthShape(url);
    return await measure(url, server, settings);
  } finally {
    await server.stop();
  }
}
