/** Text for the console: one line per measurement as it lands, then the summary table. */
import type { Measurement } from './measure.js';
import { SERVER_IDS, SERVERS } from './server-catalogue.js';
import type { HttpBenchSettings } from './settings.js';
import { KERNEL_VS_KOA_TARGET, type HttpBenchSummary, type Ratios } from './summarize.js';

const LABEL_WIDTH = Math.max(...SERVER_IDS.map((id) => SERVERS[id].label.length)) + 2;

export function settingsLine(s: HttpBenchSettings): string {
  return `http: GET /api/health, ${s.connections} connections, pipelining ${s.pipelining}, `
    + `${s.warmupS} s warm-up + ${s.durationS} s per server, ${s.rounds} round(s), median reported`;
}

export function measurementLine(round: number, label: string, m: Measurement): string {
  const failed = m.failures ? `  (${m.failures} failed requests!)` : '';
  return `  round ${round}  ${label.padEnd(LABEL_WIDTH)} ${fmt(m.reqPerSec, 0).padStart(8)} req/s  `
    + `p50 ${fmt(m.p50Ms, 0)} ms  p99 ${fmt(m.p99Ms, 0)} ms  cpu ${fmt(m.cpuMicrosPerReq, 1)} µs/req${failed}`;
}

export function summaryTable(summary: HttpBenchSummary): string {
  const head = ['req/s', 'p50 ms', 'p99 ms', 'cpu µs/req', 'failed'];
  const widths = [8, 7, 7, 11, 7];
  const row = (label: string, cells: string[]) => label.padEnd(LABEL_WIDTH) + cells.map((c, i) => c.padStart(widths[i]! + 1)).join('');
  const lines = [row('server', head)];
  for (const id of SERVER_IDS) {
    const m = summary.perServer[id];
    if (!m) continue;
    lines.push(row(SERVERS[id].label, [
      fmt(m.reqPerSec, 0), fmt(m.p50Ms, 0), fmt(m.p99Ms, 0), fmt(m.cpuMicrosPerReq, 1), String(m.failures),
    ]));
  }
  lines.push('', `throughput      ${ratioLine(summary.ratios)}`, `cpu per request ${ratioLine(summary.cpuRatios)}`);
  if (summary.meetsTarget !== null) {
    // Three decimals, so a 0.698 shown as 0.70x above does not seem to contradict its verdict.
    const verdict = summary.meetsTarget ? 'PASS' : 'BELOW TARGET';
    lines.push(`target: kernel/koa throughput ${summary.ratios.kernelVsKoa!.toFixed(3)} >= ${KERNEL_VS_KOA_TARGET.toFixed(2)}: ${verdict}`);
  }
  return lines.join('\n');
}

function ratioLine(r: Ratios): string {
  return `kernel/koa ${ratio(r.kernelVsKoa)}   kernel/raw ${ratio(r.kernelVsRaw)}   koa/raw ${ratio(r.koaVsRaw)}`;
}

function ratio(value: number | null): string {
  return value === null ? '  n/a' : `${value.toFixed(2)}x`;
}

function fmt(value: number, digits: number): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
