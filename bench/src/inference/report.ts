/** Text for the console: progress lines as figures land, then the summary table and the verdicts. */
import type { HealthLatency } from './health-probe.js';
import type { InferenceBenchSettings } from './settings.js';
import { signed, type ChatComparison, type EmbeddingsComparison, type InferenceBenchSummary, type SideFigures } from './summarize.js';
import type { ChatWorkload } from './workloads.js';

export function settingsLine(s: InferenceBenchSettings, workloads: ChatWorkload[]): string {
  const chats = workloads.map((w) => `${w.label} = ${w.modelId} "${w.prompt}" max_tokens ${w.maxTokens}`).join('; ');
  return `inference: ${chats}; temperature 0, llama threads 1, one worker per side; `
    + `${s.warmup} warm-up + ${s.reps} measured per side, sides alternating, medians reported`;
}

export function sideLine(workload: ChatWorkload, side: string, f: SideFigures): string {
  return `  ${workload.label.padEnd(6)} ${side.padEnd(7)} TTFT ${fmt(f.ttftMs, 1).padStart(7)} ms   `
    + `stream ${fmt(f.streamTokPerSec, 0).padStart(6)} tok/s   whole ${fmt(f.totalTokPerSec, 0).padStart(6)} tok/s   `
    + `${fmt(f.totalMs, 1)} ms/request, cpu ${fmt(f.cpuMs, 1)} ms/request, ${f.completionTokens} completion tokens in ${f.deltas} deltas`;
}

export function healthLine(label: string, h: HealthLatency): string {
  return `  /api/health ${label.padEnd(18)} p50 ${fmt(h.p50Ms, 2)} ms   p99 ${fmt(h.p99Ms, 2)} ms   max ${fmt(h.maxMs, 2)} ms   (${h.samples} probes)`;
}

export function embeddingsLine(e: EmbeddingsComparison): string {
  return `  embeddings (${e.batch} texts/request)  engine ${fmt(e.engineInputsPerSec, 0)} inputs/s   `
    + `kernel ${fmt(e.kernelInputsPerSec, 0)} inputs/s (float JSON), ${fmt(e.kernelBase64InputsPerSec, 0)} inputs/s (base64)`;
}

export function summaryTable(summary: InferenceBenchSummary): string {
  const head = ['engine', 'kernel', 'kernel vs engine'];
  const widths = [10, 10, 18];
  const labelWidth = 48;
  const row = (label: string, cells: string[]) => label.padEnd(labelWidth) + cells.map((c, i) => c.padStart(widths[i]! + 1)).join('');
  const lines = [row('figure (medians)', head)];
  for (const c of summary.chats) lines.push(...chatRows(c, row));
  if (summary.health) {
    const { idle, duringGeneration, generations } = summary.health;
    lines.push(row('/api/health p50 ms, idle / during generation', [fmt(idle.p50Ms, 2), fmt(duringGeneration.p50Ms, 2), '']));
    lines.push(row('/api/health p99 ms, idle / during generation', [fmt(idle.p99Ms, 2), fmt(duringGeneration.p99Ms, 2), `(${generations} generations)`]));
  }
  if (summary.embeddings) {
    const e = summary.embeddings;
    lines.push(row(`embeddings inputs/s (${e.batch}/request, float)`, [fmt(e.engineInputsPerSec, 0), fmt(e.kernelInputsPerSec, 0), `${e.ratio.toFixed(2)}x`]));
    lines.push(row(`embeddings inputs/s (${e.batch}/request, base64)`, [fmt(e.engineInputsPerSec, 0), fmt(e.kernelBase64InputsPerSec, 0), `${e.base64Ratio.toFixed(2)}x`]));
  } else {
    lines.push('embeddings: skipped (no glove-sif-50d: ../shared/models is absent)');
  }
  if (summary.othersCpuShare !== null) {
    const share = `${(summary.othersCpuShare * 100).toFixed(0)}%`;
    const warn = summary.othersCpuShare > 0.05 ? ': the figures are disturbed, rerun on an idle machine' : '';
    lines.push(`other work used ${share} of the machine's CPU during the run${warn}`);
  }
  lines.push('', 'targets:');
  const whatWidth = Math.max(...summary.verdicts.map((v) => v.what.length)) + 2;
  for (const v of summary.verdicts) {
    lines.push(`  ${v.what.padEnd(whatWidth)} ${v.value.padStart(9)}   target ${v.target.padEnd(10)} ${v.pass ? 'PASS' : 'BELOW TARGET'}`);
  }
  return lines.join('\n');
}

function chatRows(c: ChatComparison, row: (label: string, cells: string[]) => string): string[] {
  const w = c.workload.label;
  const rows = [
    row(`${w}: tokens/s, first→last delta`, [fmt(c.engine.streamTokPerSec, 0), fmt(c.kernel.streamTokPerSec, 0), `${c.tokPerSecRatio.toFixed(2)}x`]),
    row(`${w}: tokens/s, whole request`, [fmt(c.engine.totalTokPerSec, 0), fmt(c.kernel.totalTokPerSec, 0), `${c.totalTokPerSecRatio.toFixed(2)}x`]),
    row(`${w}: TTFT ms`, [fmt(c.engine.ttftMs, 1), fmt(c.kernel.ttftMs, 1), `${signed(c.ttftExtraMs)} ms`]),
    row(`${w}: cpu ms/request`, [fmt(c.engine.cpuMs, 1), fmt(c.kernel.cpuMs, 1), `${signed(c.kernel.cpuMs - c.engine.cpuMs)} ms`]),
    row(`${w}: completion tokens`, [String(c.engine.completionTokens), String(c.kernel.completionTokens), c.sameAnswer ? 'same answer' : 'ANSWERS DIFFER']),
  ];
  return rows;
}

function fmt(value: number, digits: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
