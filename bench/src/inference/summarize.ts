/** Reduces repetitions to medians and holds the figures to their targets. */
import type { HealthLatency } from './health-probe.js';
import { median } from './stats.js';
import type { GenerationSample } from './timing.js';
import type { ChatWorkload } from './workloads.js';

export const TARGETS = {
  /** Kernel streamed tokens/s (first to last delta) over the engine's. */
  tokensPerSecRatio: 0.95,
  /** Kernel TTFT minus engine TTFT, milliseconds. */
  ttftExtraMs: 20,
  /** `/api/health` p99 while generations stream, milliseconds. */
  healthP99Ms: 10,
  /** Kernel embeddings inputs/s over the engine's. */
  embeddingsRatio: 0.8,
} as const;

export interface SideFigures {
  /** Median time to the first content delta, ms. */
  ttftMs: number;
  /** Median of completion tokens / (last delta − first delta). */
  streamTokPerSec: number;
  /** Median of completion tokens / whole call. */
  totalTokPerSec: number;
  /** Median whole call, ms. */
  totalMs: number;
  completionTokens: number;
  deltas: number;
  /** Median CPU time per request of the process doing the work (all its threads), ms. */
  cpuMs: number;
}

export interface ChatComparison {
  workload: ChatWorkload;
  engine: SideFigures;
  kernel: SideFigures;
  tokPerSecRatio: number;
  totalTokPerSecRatio: number;
  ttftExtraMs: number;
  /** Whether both sides produced the same text (else the comparison is of different work). */
  sameAnswer: boolean;
}

export interface EmbeddingsComparison {
  batch: number;
  engineInputsPerSec: number;
  /** Float vectors in JSON (the default): the figure held to the target. */
  kernelInputsPerSec: number;
  /** `encoding_format: 'base64'`, what the openai SDK asks for by default. */
  kernelBase64InputsPerSec: number;
  ratio: number;
  base64Ratio: number;
}

export interface InferenceBenchSummary {
  chats: ChatComparison[];
  health: { idle: HealthLatency; duringGeneration: HealthLatency; generations: number } | null;
  /** null when ../shared (the real embedder) is absent. */
  embeddings: EmbeddingsComparison | null;
  /** Share of the machine's CPU other work used during the run (null where it cannot be read). */
  othersCpuShare: number | null;
  verdicts: Verdict[];
}

export interface Verdict {
  what: string;
  value: string;
  target: string;
  pass: boolean;
}

export function sideFigures(samples: GenerationSample[]): SideFigures {
  const mid = (pick: (s: GenerationSample) => number) => median(samples.map(pick));
  return {
    ttftMs: mid((s) => s.ttftMs),
    streamTokPerSec: mid((s) => (s.streamMs > 0 ? s.completionTokens / (s.streamMs / 1000) : 0)),
    totalTokPerSec: mid((s) => s.completionTokens / (s.totalMs / 1000)),
    totalMs: mid((s) => s.totalMs),
    completionTokens: mid((s) => s.completionTokens),
    deltas: mid((s) => s.deltas),
    cpuMs: mid((s) => s.cpuMs),
  };
}

export function compareChat(workload: ChatWorkload, engine: GenerationSample[], kernel: GenerationSample[]): ChatComparison {
  const e = sideFigures(engine);
  const k = sideFigures(kernel);
  const answers = new Set([...engine, ...kernel].map((s) => s.text));
  return {
    workload,
    engine: e,
    kernel: k,
    tokPerSecRatio: k.streamTokPerSec / e.streamTokPerSec,
    totalTokPerSecRatio: k.totalTokPerSec / e.totalTokPerSec,
    ttftExtraMs: k.ttftMs - e.ttftMs,
    sameAnswer: answers.size === 1,
  };
}

export function verdicts(summary: Omit<InferenceBenchSummary, 'verdicts'>): Verdict[] {
  const out: Verdict[] = [];
  for (const c of summary.chats) {
    out.push({
      what: `${c.workload.label}: tokens/s, kernel/engine`,
      value: `${c.tokPerSecRatio.toFixed(2)}x`,
      target: `>= ${TARGETS.tokensPerSecRatio.toFixed(2)}x`,
      pass: c.tokPerSecRatio >= TARGETS.tokensPerSecRatio,
    });
    out.push({
      what: `${c.workload.label}: TTFT, kernel − engine`,
      value: `${signed(c.ttftExtraMs)} ms`,
      target: `<= +${TARGETS.ttftExtraMs} ms`,
      pass: c.ttftExtraMs <= TARGETS.ttftExtraMs,
    });
  }
  if (summary.health) {
    const p99 = summary.health.duringGeneration.p99Ms;
    out.push({ what: '/api/health p99 during generation', value: `${p99.toFixed(1)} ms`, target: `< ${TARGETS.healthP99Ms} ms`, pass: p99 < TARGETS.healthP99Ms });
  }
  if (summary.embeddings) {
    const r = summary.embeddings.ratio;
    out.push({ what: 'embeddings inputs/s (float), kernel/engine', value: `${r.toFixed(2)}x`, target: `>= ${TARGETS.embeddingsRatio.toFixed(2)}x`, pass: r >= TARGETS.embeddingsRatio });
  }
  return out;
}

export function signed(value: number, digits = 1): string {
  return `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(digits)}`;
}
