/** The summary of bench/peers: the issue's table (medians over rounds), Keel against the better peer, the targets. */
import { fmt, median, verdictLine, type Verdict } from '../ledger/kit.js';
import type { LevelFigures } from './load.js';
import type { EngineId, FlowKind, PeersBenchSettings } from './settings.js';

export interface FlowRound {
  /** One run at a time: request → completed result. */
  p50Ms: number;
  p99Ms: number;
  /** CPU the engine's processes spent per run, one at a time. */
  engineCpuMsPerRun: number;
  levels: LevelFigures[];
  /** Syncs per run by concurrent clients (null: strace could not count them). */
  syncsPerRun: Record<number, number | null>;
  /** The calls counted (or why not), by concurrent clients. */
  syncCalls: Record<number, string>;
  /** Cores' worth of CPU other processes used while latency and throughput were measured. */
  otherCores: number;
}

export interface PeersResults {
  settings: PeersBenchSettings;
  /** The engines measured (installed ones). */
  engines: EngineId[];
  labels: Record<EngineId, string>;
  rounds: Partial<Record<EngineId, Partial<Record<FlowKind, FlowRound[]>>>>;
  /** How runs were driven, by engine and flow. */
  drives: Partial<Record<EngineId, Partial<Record<FlowKind, string>>>>;
  contendedCores: number;
}

const FLOW_NAMES: Record<FlowKind, string> = { recorded: '10 recorded steps', inMemory: '10 in-memory steps' };
/** Issue 21's goal: Keel at least this much faster than the better peer on the recorded flow. */
const RECORDED_TARGET = 2;
/** Issue 21's Keel figures for the in-memory flow before the change (9 rounds, this machine): no slower than these. */
const IN_MEMORY_BEFORE = { p50Ms: 11.7, runsPerS: 388 };

interface Figures {
  p50Ms: number;
  p99Ms: number;
  cpuMsPerRun: number;
  runsPerS: number[];
  levelP50Ms: number[];
  levelP99Ms: number[];
  failed: number;
  syncsPerRun: Array<number | null>;
  otherCores: number;
  notes: string[];
}

/**
 * Medians over every round: the engines are compared with each other, so each row is over the same
 * rounds whatever load each met (leaving out contended rounds would compare one engine's quiet
 * round with another's busy ones); the other load stands beside the figures instead.
 */
function figuresOf(label: string, list: FlowRound[], r: PeersResults): Figures {
  const mid = (pick: (m: FlowRound) => number) => median(list.map(pick));
  const contended = list.filter((m) => m.otherCores > r.contendedCores).length;
  const s = r.settings;
  return {
    p50Ms: mid((m) => m.p50Ms),
    p99Ms: mid((m) => m.p99Ms),
    cpuMsPerRun: mid((m) => m.engineCpuMsPerRun),
    runsPerS: s.clients.map((_, i) => mid((m) => m.levels[i]!.runsPerS)),
    levelP50Ms: s.clients.map((_, i) => mid((m) => m.levels[i]!.p50Ms)),
    levelP99Ms: s.clients.map((_, i) => mid((m) => m.levels[i]!.p99Ms)),
    failed: list.reduce((sum, m) => sum + m.levels.reduce((n, l) => n + l.failed, 0), 0),
    syncsPerRun: s.syncClients.map((c) => {
      const counted = list.map((m) => m.syncsPerRun[c]).filter((v): v is number => typeof v === 'number');
      return counted.length ? median(counted) : null;
    }),
    otherCores: median(list.map((m) => m.otherCores)),
    notes: contended ? [`${label}: ${contended} of ${list.length} round(s) contended (other load > ${r.contendedCores} cores)`] : [],
  };
}

/** The throughput level the ratios use: 32 clients when measured (the issue's), else the largest. */
function referenceLevel(clients: number[]): number {
  const at32 = clients.indexOf(32);
  return at32 >= 0 ? at32 : clients.indexOf(Math.max(...clients));
}

export function summarize(r: PeersResults): string {
  const s = r.settings;
  const ref = referenceLevel(s.clients);
  const refClients = s.clients[ref]!;
  const lines: string[] = [];
  const header = ['flow', 'engine', 'p50 ms', 'p99 ms', ...s.clients.map((c) => `runs/s, ${c} clients`), `p50 / p99 ms at ${refClients}`, ...s.syncClients.map((c) => `syncs/run, ${c} client${c === 1 ? '' : 's'}`), 'engine cpu ms/run', 'other load (cores)'];
  lines.push(`| ${header.join(' | ')} |`, `| ${header.map((_, i) => (i < 2 ? '---' : '---:')).join(' | ')} |`);
  const notes: string[] = [];
  const verdicts: Verdict[] = [];
  const ratioLines: string[] = [];
  for (const flow of s.flows) {
    const byEngine = new Map<EngineId, Figures>();
    for (const id of r.engines) {
      const list = r.rounds[id]?.[flow];
      if (!list?.length) continue;
      const f = figuresOf(`${r.labels[id]} ${flow}`, list, r);
      byEngine.set(id, f);
      notes.push(...f.notes);
      if (f.failed) notes.push(`${r.labels[id]} ${flow}: ${f.failed} run(s) failed under load (see the round lines)`);
      lines.push(`| ${[FLOW_NAMES[flow], r.labels[id], fmt(f.p50Ms, 1), fmt(f.p99Ms, 1), ...f.runsPerS.map((v) => fmt(v, 0)), `${fmt(f.levelP50Ms[ref]!, 1)} / ${fmt(f.levelP99Ms[ref]!, 1)}`,
        ...f.syncsPerRun.map((v) => (v === null ? 'n/a' : fmt(v, 1))), fmt(f.cpuMsPerRun, 2), fmt(f.otherCores, 2)].join(' | ')} |`);
    }
    const keel = byEngine.get('keel');
    const peers = [...byEngine.entries()].filter(([id]) => id !== 'keel');
    if (keel && peers.length) {
      const [fastId, fast] = peers.reduce((a, b) => (b[1].p50Ms < a[1].p50Ms ? b : a));
      const [busyId, busy] = peers.reduce((a, b) => (b[1].runsPerS[ref]! > a[1].runsPerS[ref]! ? b : a));
      const p50Ratio = fast.p50Ms / keel.p50Ms;
      const runsRatio = keel.runsPerS[ref]! / busy.runsPerS[ref]!;
      ratioLines.push(`${FLOW_NAMES[flow]}: Keel p50 ${fmt(keel.p50Ms, 1)} ms vs ${r.labels[fastId]} ${fmt(fast.p50Ms, 1)} ms (the better peer): ${fmt(p50Ratio)}x as fast; `
        + `runs/s at ${refClients} clients ${fmt(keel.runsPerS[ref]!, 0)} vs ${r.labels[busyId]} ${fmt(busy.runsPerS[ref]!, 0)}: ${fmt(runsRatio)}x`);
      if (flow === 'recorded') {
        verdicts.push({ label: `recorded flow, Keel p50 >= ${RECORDED_TARGET}x as fast as the better peer`, pass: p50Ratio >= RECORDED_TARGET, detail: `${fmt(p50Ratio)}x >= ${RECORDED_TARGET}x` });
        verdicts.push({ label: `recorded flow, Keel runs/s at ${refClients} clients >= ${RECORDED_TARGET}x the better peer's`, pass: runsRatio >= RECORDED_TARGET, detail: `${fmt(runsRatio)}x >= ${RECORDED_TARGET}x` });
      }
    }
    if (keel && flow === 'inMemory') {
      verdicts.push({ label: 'in-memory flow, Keel p50 no slower than before (issue 21: 11.7 ms)', pass: keel.p50Ms <= IN_MEMORY_BEFORE.p50Ms, detail: `${fmt(keel.p50Ms, 1)} ms <= ${IN_MEMORY_BEFORE.p50Ms} ms` });
      if (refClients === 32) verdicts.push({ label: 'in-memory flow, Keel runs/s at 32 clients no lower than before (issue 21: 388)', pass: keel.runsPerS[ref]! >= IN_MEMORY_BEFORE.runsPerS, detail: `${fmt(keel.runsPerS[ref]!, 0)} >= ${IN_MEMORY_BEFORE.runsPerS}` });
    }
  }
  const drives = r.engines.flatMap((id) => s.flows.map((flow) => r.drives[id]?.[flow] ? `${r.labels[id]} ${flow}: ${r.drives[id]![flow]}` : null).filter((l): l is string => l !== null));
  return [
    `medians over ${s.rounds} round(s) (contended ones too: other load beside); p50/p99 one run at a time; syncs = fsync + fdatasync + sync_file_range + msync of the engine's processes (strace -f -c)`,
    ...lines,
    '',
    ...ratioLines,
    ...(ratioLines.length ? [''] : []),
    'how a run was driven:',
    ...drives.map((d) => `  ${d}`),
    ...(notes.length ? ['', ...notes] : []),
    '',
    ...verdicts.map(verdictLine),
  ].join('\n');
}
