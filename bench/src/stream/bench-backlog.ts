/**
 * The backlog benchmark (issue 9 item 7): many subscribers replay one run's large ledger from the
 * start while a small, unrelated run streams live. It measures how long the small run's stream takes
 * to get its `done` (it must not queue behind the big run's backlog) and how long the big streams take
 * to deliver every record, exactly once and in order.
 *
 * The server is the stream benchmark's keel child (the kernel, the ledger plugin, a driver plugin
 * that appends records through the ledger's public API). The subscribers live in this process: they
 * only scan the bytes for `id:` lines and the `done` event.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { startServer } from '../http/spawn-server.js';
import { envInt, fmt, machineLine, watchOtherLoad } from '../ledger/kit.js';
import { STREAM_TOKEN_ENV, type CreatedRun } from './settings.js';

export interface BacklogSettings {
  subscribers: number;
  records: number;
  recordBytes: number;
  smallEvents: number;
  timeoutS: number;
  /** Subscribers resume from cursors spread over the ledger (Last-Event-ID) instead of all from 0. */
  spread: boolean;
}

export function backlogSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): BacklogSettings {
  return {
    subscribers: envInt('BENCH_BACKLOG_SUBSCRIBERS', 20, env),
    records: envInt('BENCH_BACKLOG_RECORDS', 200, env),
    recordBytes: envInt('BENCH_BACKLOG_RECORD_BYTES', 200_000, env),
    smallEvents: envInt('BENCH_BACKLOG_SMALL_EVENTS', 20, env),
    timeoutS: envInt('BENCH_BACKLOG_TIMEOUT_S', 150, env),
    spread: envInt('BENCH_BACKLOG_SPREAD', 0, env) === 1,
  };
}

interface StreamOutcome {
  /** ms from the stream's start to its `done`; null when it did not end with `done` in time. */
  doneMs: number | null;
  steps: number;
  /** A step whose id was not one more than the previous one's. */
  outOfOrder: number;
  ended: 'done' | 'closed' | 'timeout' | 'error';
}

/** Reads one SSE stream, counting `id:` lines in order, until `done`, the end of the stream or the deadline. */
function follow(url: string, token: string, deadline: number, from = 0): Promise<StreamOutcome> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    let steps = 0;
    let outOfOrder = 0;
    let last = from;
    let carry = '';
    let settled = false;
    const finish = (ended: StreamOutcome['ended']) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ doneMs: ended === 'done' ? performance.now() - t0 : null, steps, outOfOrder, ended });
    };
    const timer = setTimeout(() => finish('timeout'), Math.max(0, deadline - Date.now()));
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...(from ? { 'last-event-id': String(from) } : {}) };
    const req = http.get(url, { headers, agent: false }, (res) => {
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => {
        const text = carry + chunk;
        const lastNewline = text.lastIndexOf('\n');
        carry = text.slice(lastNewline + 1);
        // Only line starts matter: `id: N` and `event: done` (the data line of a step is JSON on one line).
        let at = 0;
        while (at <= lastNewline) {
          const end = text.indexOf('\n', at);
          if (text.startsWith('id: ', at)) {
            const id = Number(text.slice(at + 4, end));
            if (id !== last + 1) outOfOrder++;
            last = id;
            steps++;
          } else if (text.startsWith('event: done', at)) {
            finish('done');
            return;
          }
          at = end + 1;
        }
      });
      res.on('end', () => finish('closed'));
      res.on('error', () => finish('error'));
    });
    req.on('error', () => finish('error'));
  });
}

async function post<T>(url: string, token: string, body: unknown): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

export async function benchBacklog(settings: BacklogSettings = backlogSettingsFromEnv()): Promise<void> {
  const mb = (settings.records * settings.recordBytes) / 1e6;
  console.log(`backlog: ${settings.subscribers} subscribers replay a ${fmt(mb, 1)} MB ledger (${settings.records} records of ${settings.recordBytes} B) ${settings.spread ? 'from cursors spread over it' : 'from the start'}; `
    + `meanwhile a small run streams ${settings.smallEvents} live records; deadline ${settings.timeoutS} s`);
  console.log(`  ${machineLine()}`);
  const token = `keel_bench_${randomBytes(18).toString('hex')}`;
  process.env[STREAM_TOKEN_ENV] = token;
  const server = await startServer(new URL('./servers/keel-stream-server.js', import.meta.url), []).finally(() => delete process.env[STREAM_TOKEN_ENV]);
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const big = await post<CreatedRun>(`${base}/bench/runs`, token, {});
    const t0 = performance.now();
    await post(`${base}/bench/runs/${big.run_id}/bulk`, token, { count: settings.records, bytes: settings.recordBytes });
    console.log(`  big ledger written in ${fmt((performance.now() - t0) / 1000, 1)} s`);
    const deadline = Date.now() + settings.timeoutS * 1000;
    const load = watchOtherLoad();
    const cpuBefore = await server.cpuMicros();
    const start = performance.now();
    const startAt = (i: number) => (settings.spread ? Math.floor((i * settings.records) / settings.subscribers) : 0);
    const bigStreams = Array.from({ length: settings.subscribers }, (_, i) => follow(`${base}${big.stream_path}`, token, deadline, startAt(i)));
    // Let the replays get going, then start the small run and follow it.
    await new Promise((r) => setTimeout(r, 500));
    const small = await post<CreatedRun>(`${base}/bench/runs`, token, {});
    const smallStream = follow(`${base}${small.stream_path}`, token, deadline);
    const smallStartMs = performance.now() - start;
    await post(`${base}/bench/runs/${small.run_id}/publish`, token, { count: settings.smallEvents, ratePerSec: 50 });
    const smallPublishedMs = performance.now() - start;
    const smallOutcome = await smallStream;
    const bigOutcomes = await Promise.all(bigStreams);
    const wallS = (performance.now() - start) / 1000;
    const serverCpuS = ((await server.cpuMicros()) - cpuBefore) / 1e6;
    const other = load.stop(serverCpuS * 1000 + process.cpuUsage().user / 1000);
    const finished = bigOutcomes.filter((o, i) => o.ended === 'done' && o.steps === settings.records - startAt(i) && o.outOfOrder === 0);
    const doneTimes = finished.map((o) => o.doneMs!).sort((a, b) => a - b);
    const badOrder = bigOutcomes.reduce((s, o) => s + o.outOfOrder, 0);
    const ends = bigOutcomes.reduce<Record<string, number>>((acc, o) => ({ ...acc, [o.ended]: (acc[o.ended] ?? 0) + 1 }), {});
    console.log(`  small run: ${smallOutcome.ended}, ${smallOutcome.steps}/${settings.smallEvents} steps; its stream opened ${fmt(smallStartMs / 1000, 2)} s after the replays began, `
      + `its records were published in ${fmt((smallPublishedMs - smallStartMs) / 1000, 2)} s, done came ${smallOutcome.doneMs === null ? 'never' : `${fmt(smallOutcome.doneMs / 1000, 2)} s after its stream opened`}`);
    console.log(`  big run: ${finished.length}/${settings.subscribers} streams complete (every record once, in order, then done); ends ${JSON.stringify(ends)}; out of order ${badOrder}`);
    if (doneTimes.length) console.log(`  big run done: first ${fmt(doneTimes[0]! / 1000, 1)} s, median ${fmt(doneTimes[doneTimes.length >> 1]! / 1000, 1)} s, last ${fmt(doneTimes.at(-1)! / 1000, 1)} s`);
    console.log(`  wall ${fmt(wallS, 1)} s, server CPU ${fmt(serverCpuS, 1)} s, other load ${fmt(other)} cores`);
  } finally {
    await server.stop();
  }
}
