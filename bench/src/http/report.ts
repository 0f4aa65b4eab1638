/** Text for the console: one line per measurement as it lands, then the summary table. */
import type { Measurement } from './measure.js';
import { SERVER_IDS, SERVERS } from './server-catalogue.js';
import type { HttpBenchSettings } from './settings.js';
import { KERNEL_VS_KOA_TARGET, type HttpBenchSummary } from './summarize.js';

const LABEL_WIDTH = Math.max(...SERVER_IDS.map((id) => SERVERS[id].label.length)) + 2;

export function settingsLine(s: HttpBenchSettings): string {
  return `http: GET /api/health, ${s.connections} connections, pipelining ${s.pipelining}, `
    + `${s.warmupS} s warm-up + ${s.durationS} s per server, ${s.rounds} round(s), median reported`;
}

export function measurementLine(round: number, label: string, m: Measurement): string {
  const failed = m.failures ? `  (${m.failures} failed requests!)` : '';
  return `  round ${round}  ${label.padEnd(LABEL_WIDTH)} ${fmt(m.reqPerSec, 0).padStart(8)} req/s  p50 ${fmt(m.p50Ms, 2)} ms  p99 ${fmt(m.p99Ms, 2)} ms${failed}`;
}

export function summaryTable(summary: HttpBenchSummary): string {
  const lines = [`${'server'.padEnd(LABEL_WIDTH)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'failed'.padStart(7)}`];
  for (const id of SERVER_IDS) {
    const m = summary.perServer[id];
    if (!m) continue;
    lines.push(`${SERVERS[id].label.padEnd(LABEL_WIDTH)} ${fmt(m.reqPerSec, 0).padStart(8)} ${fmt(m.p50Ms, 2).padStart(8)} ${fmt(m.p99Ms, 2).padStart(8)} ${String(m.failures).padStart(7)}`);
  }
  const { kernelVsKoa, kernelVsRaw, koaVsRaw } = summary.ratios;
  lines.push('', `kernel/koa ${ratio(kernelVsKoa)}   kernel/raw ${ratio(kernelVsRaw)}   koa/raw ${ratio(koaVsRaw)}`);
  if (summary.meetsTarget !== null) {
    const verdict = summary.meetsTarget ? 'PASS' : 'BELOW TARGET';
    lines.push(`target kernel >= ${KERNEL_VS_KOA_TARGET.toFixed(2)}x koa + router: ${verdict}`);
  }
  return lines.join('\n');
}

function ratio(value: number | null): string {
  return value === null ? 'n/a' : `${value.toFixed(2)}x`;
}

function fmt(value: number, digits: number): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
