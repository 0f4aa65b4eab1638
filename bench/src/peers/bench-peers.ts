/**
 * bench/peers (issue 21): the same two 10-step flows on Keel, Restate and DBOS, driven over HTTP
 * from this one process, rounds interleaved across engines (each round starts every engine afresh,
 * in an order rotated each round). Per engine and flow, each round:
 * - latency: runs one at a time (after warm-up runs), p50/p99 from the request to the completed result;
 * - throughput: N concurrent clients running back to back for a fixed time, at each level: runs/s, p50/p99;
 * - syncs: strace attached to the engine's processes for a phase of runs: syncs per run at each level asked.
 * Figures are medians over all rounds, the other load (other processes' CPU) beside them.
 */
import { contendedCores, fmt, machineLine, quantile, watchOtherLoad } from '../ledger/kit.js';
import { rotate } from '../common/rounds.js';
import { dbosEngine } from './dbos-engine.js';
import type { Engine, RunningEngine } from './engine.js';
import { keelEngine } from './keel-engine.js';
import { closedLoop, fixedRuns, oneAtATime, type LevelFigures } from './load.js';
import { cpuMsOf } from './procs.js';
import { summarize, type FlowRound, type PeersResults } from './report.js';
import { restateEngine } from './restate-engine.js';
import { peersSettingsFromEnv, type EngineId, type FlowKind, type PeersBenchSettings } from './settings.js';
import { countSyncs, describeCalls, straceMissing } from './syncs.js';

/** Synced commits keep journal threads busy, which counts as other load: allow for them. */
const CONTENDED_CORES = contendedCores(0.5);

export async function benchPeers(settings: PeersBenchSettings = peersSettingsFromEnv()): Promise<PeersResults> {
  const all: Record<EngineId, Engine> = { keel: keelEngine, restate: restateEngine, dbos: dbosEngine(settings.pgBin) };
  console.log(`peers: ${settings.flows.join(' and ')} flows (10 steps) on ${settings.engines.join(', ')}; per round and flow: `
    + `${settings.runs} runs one at a time after ${settings.warmupRuns} warm-up, ${settings.seconds} s at each of ${settings.clients.join('/')} clients, `
    + `syncs over ${settings.syncRuns} runs at ${settings.syncClients.join('/')} clients; ${settings.rounds} round(s), medians reported`);
  console.log(`  ${machineLine()}`);
  const engines: EngineId[] = [];
  for (const id of settings.engines) {
    const missing = all[id].missing();
    if (missing) console.log(`  skipped ${all[id].label}: ${missing}`);
    else engines.push(id);
  }
  const noStrace = straceMissing();
  if (noStrace) console.log(`  ${noStrace}`);
  const maxClients = Math.max(1, ...settings.clients, ...settings.syncClients);
  const results: PeersResults = { settings, engines, labels: Object.fromEntries(engines.map((id) => [id, all[id].label])) as Record<EngineId, string>, rounds: {}, drives: {}, contendedCores: CONTENDED_CORES };
  // restate-server and PostgreSQL outlive an interrupted harness: stop the running engine first.
  let running: RunningEngine | null = null;
  const interrupted = (signal: NodeJS.Signals) => {
    console.log(`\n  ${signal}: stopping the running engine`);
    void (running?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    await measureAll(all, engines, maxClients, settings, noStrace === null, results, (engine) => (running = engine));
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
  console.log(`\n${summarize(results)}`);
  return results;
}

async function measureAll(all: Record<EngineId, Engine>, engines: EngineId[], maxClients: number, settings: PeersBenchSettings, countingSyncs: boolean,
  results: PeersResults, onRunning: (engine: RunningEngine | null) => void): Promise<void> {
  for (let round = 0; round < settings.rounds; round++) {
    for (const id of rotate(engines, round)) {
      const label = all[id].label;
      let engine: RunningEngine;
      try {
        engine = await all[id].start(maxClients);
      } catch (err) {
        console.log(`  round ${round + 1}  ${label} did not start: ${(err as Error).message}`);
        continue;
      }
      onRunning(engine);
      try {
        for (const flow of rotate(settings.flows, round)) {
          const measured = await measureFlow(engine, flow, settings, countingSyncs);
          ((results.rounds[id] ??= {})[flow] ??= []).push(measured);
          (results.drives[id] ??= {})[flow] = engine.describe(flow);
          console.log(roundLine(round + 1, label, flow, measured));
        }
      } catch (err) {
        console.log(`  round ${round + 1}  ${label} failed: ${(err as Error).message}`);
      } finally {
        onRunning(null);
        await engine.stop();
      }
    }
  }
}

async function measureFlow(engine: RunningEngine, flow: FlowKind, s: PeersBenchSettings, countingSyncs: boolean): Promise<FlowRound> {
  const run = () => engine.run(flow);
  await oneAtATime(run, s.warmupRuns);
  const load = watchOtherLoad();
  const ownBefore = process.cpuUsage();
  const engineBefore = cpuMsOf(engine.pids());
  const samples = await oneAtATime(run, s.runs);
  const engineCpuMsPerRun = (cpuMsOf(engine.pids()) - engineBefore) / s.runs;
  const levels: LevelFigures[] = [];
  for (const clients of s.clients) levels.push(await closedLoop(run, clients, s.seconds));
  const own = process.cpuUsage(ownBefore);
  const otherCores = load.stop(cpuMsOf(engine.pids()) - engineBefore + (own.user + own.system) / 1000);
  const syncsPerRun: Record<number, number | null> = {};
  const syncCalls: Record<number, string> = {};
  for (const clients of countingSyncs ? s.syncClients : []) {
    const runs = Math.max(s.syncRuns, clients * 4);
    try {
      const count = await countSyncs(engine.pids(), () => fixedRuns(run, clients, runs));
      syncsPerRun[clients] = count.total / runs;
      syncCalls[clients] = describeCalls(count);
    } catch (err) {
      syncsPerRun[clients] = null;
      syncCalls[clients] = (err as Error).message;
    }
  }
  return { p50Ms: quantile(samples, 0.5), p99Ms: quantile(samples, 0.99), engineCpuMsPerRun, levels, syncsPerRun, syncCalls, otherCores };
}

function roundLine(round: number, label: string, flow: FlowKind, m: FlowRound): string {
  const levels = m.levels.map((l) => `${l.clients}c ${fmt(l.runsPerS, 0)}/s p50 ${fmt(l.p50Ms, 1)} p99 ${fmt(l.p99Ms, 1)}${l.failed ? ` FAILED ${l.failed}: ${l.firstError}` : ''}`).join('  ');
  const syncs = Object.entries(m.syncsPerRun).map(([c, v]) => `${c}c ${v === null ? 'n/a' : fmt(v, 1)} (${m.syncCalls[Number(c)]})`).join('  ');
  return `  round ${round}  ${label.padEnd(7)} ${flow.padEnd(8)}  1c p50 ${fmt(m.p50Ms)} ms p99 ${fmt(m.p99Ms)} ms, engine cpu ${fmt(m.engineCpuMsPerRun)} ms/run  |  ${levels}  |  syncs/run ${syncs || 'not counted'}  |  other load ${fmt(m.otherCores)} cores${m.otherCores > CONTENDED_CORES ? ' (contended)' : ''}`;
}
