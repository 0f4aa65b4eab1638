/**
 * The subscriber side, run as its own child process so that parsing a thousand streams does not
 * share the server's event loop (or the parent's). Each subscriber is a plain `node:http` GET
 * (its own socket, no pooling) reading the SSE body; each event is stamped when the chunk that
 * completes it arrives, before any parsing. Only the `event:` and `id:` lines are read on the hot
 * path; one subscriber also parses every record to check the payload.
 */
import http from 'node:http';
import type { Percentiles } from '../common/child-messages.js';
import { openInBatches } from '../common/connect-batches.js';
import { quantile, wallMs } from '../ledger/kit.js';
import type { CollectMessage, ConnectMessage, DeliveryReport, ToChild } from './client-protocol.js';

class Subscriber {
  /** Receive time by cursor - 1 (NaN until received). */
  readonly received: Float64Array;
  last = 0;
  count = 0;
  reordered = 0;
  done = false;
  ended = false;
  problem: string | null = null;
  bytes = 0;
  private buffer = '';
  private res: http.IncomingMessage | null = null;
  private req: http.ClientRequest | null = null;
  private onEnd: (() => void) | null = null;

  constructor(private readonly expected: number, private readonly checkPayload: boolean) {
    this.received = new Float64Array(expected).fill(Number.NaN);
  }

  open(url: string, headers: Record<string, string>): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = http.get(url, { agent: false, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`stream answered ${res.statusCode}`));
          return;
        }
        this.res = res;
        res.setEncoding('latin1');
        res.on('data', (chunk: string) => this.onData(chunk));
        res.on('end', () => this.finish(null));
        res.on('error', (err) => this.finish(`stream error: ${err.message}`));
        res.on('close', () => this.finish(null));
        resolve();
      });
      req.on('error', (err) => (this.res ? this.finish(`request error: ${err.message}`) : reject(err)));
      this.req = req;
    });
  }

  /** Resolves once the stream has ended (or at once if it has). */
  whenEnded(): Promise<void> {
    return this.ended ? Promise.resolve() : new Promise((resolve) => (this.onEnd = resolve));
  }

  abort(): void {
    this.req?.destroy();
    this.finish('timed out');
  }

  private onData(chunk: string): void {
    const at = wallMs();
    this.buffer += chunk;
    let cut = this.buffer.indexOf('\n\n');
    while (cut >= 0) {
      const event = this.buffer.slice(0, cut + 2);
      this.buffer = this.buffer.slice(cut + 2);
      this.onEvent(event, at);
      cut = this.buffer.indexOf('\n\n');
    }
  }

  private onEvent(event: string, at: number): void {
    if (event.startsWith(':')) return;
    if (event.startsWith('event: step\nid: ')) {
      const eol = event.indexOf('\n', 16);
      const cursor = Number(event.slice(16, eol));
      if (cursor === this.last + 1 && cursor <= this.expected) {
        this.received[cursor - 1] = at;
        this.count++;
      } else {
        this.reordered++;
        this.problem ??= `cursor ${cursor} after ${this.last}`;
        if (cursor >= 1 && cursor <= this.expected && Number.isNaN(this.received[cursor - 1]!)) {
          this.received[cursor - 1] = at;
          this.count++;
        }
      }
      this.last = Math.max(this.last, cursor);
      this.bytes += event.length;
      if (this.checkPayload) this.check(event, cursor);
      return;
    }
    if (event.startsWith('event: done\n')) {
      this.done = true;
      return;
    }
    this.problem ??= `unexpected event ${JSON.stringify(event.slice(0, 60))}`;
  }

  private check(event: string, cursor: number): void {
    const dataLine = event.split('\n').find((line) => line.startsWith('data: '));
    const data = JSON.parse(dataLine?.slice(6) ?? 'null') as { cursor?: number; result?: { bench_index?: number; bench_sent_at?: number } } | null;
    if (data?.cursor !== cursor || data.result?.bench_index !== cursor - 1 || typeof data.result.bench_sent_at !== 'number') {
      this.problem ??= `payload of cursor ${cursor} does not carry it: ${dataLine?.slice(0, 120)}`;
    }
  }

  private finish(problem: string | null): void {
    if (this.ended) return;
    this.ended = true;
    if (problem) this.problem ??= problem;
    this.onEnd?.();
  }
}

let subscribers: Subscriber[] = [];
let expected = 0;
let cpuAtConnected: NodeJS.CpuUsage = process.cpuUsage();

async function connect(msg: ConnectMessage): Promise<void> {
  const started = performance.now();
  expected = msg.expected;
  subscribers = Array.from({ length: msg.count }, (_, i) => new Subscriber(msg.expected, i === 0));
  const { failed, firstError } = await openInBatches(subscribers, msg.batch, (s) => s.open(msg.url, msg.headers));
  cpuAtConnected = process.cpuUsage();
  process.send!({ type: 'connected', opened: subscribers.length - failed, failed, firstError, ms: performance.now() - started });
}

async function collect(msg: CollectMessage): Promise<void> {
  const timer = setTimeout(() => subscribers.forEach((s) => s.abort()), msg.timeoutMs);
  await Promise.all(subscribers.map((s) => s.whenEnded()));
  clearTimeout(timer);
  const cpu = process.cpuUsage(cpuAtConnected);
  process.send!(report(msg, (cpu.user + cpu.system) / 1000));
  subscribers = [];
}

function report(msg: CollectMessage, cpuMs: number): DeliveryReport {
  const { acks, sent } = msg.times;
  const ackLat: number[] = [];
  const sendLat: number[] = [];
  const spreads: number[] = [];
  for (let c = 0; c < expected; c++) {
    let first = Infinity;
    let last = -Infinity;
    for (const s of subscribers) {
      const at = s.received[c]!;
      if (Number.isNaN(at)) continue;
      ackLat.push(at - acks[c]!);
      sendLat.push(at - sent[c]!);
      if (at < first) first = at;
      if (at > last) last = at;
    }
    if (last >= first) spreads.push(last - first);
  }
  const lost = subscribers.reduce((sum, s) => sum + (expected - s.count), 0);
  const reordered = subscribers.reduce((sum, s) => sum + s.reordered, 0);
  const complete = subscribers.filter((s) => s.done && s.count === expected && s.reordered === 0 && !s.problem).length;
  const firstProblem = subscribers.find((s) => s.problem)?.problem ?? null;
  const totalBytes = subscribers.reduce((sum, s) => sum + s.bytes, 0);
  const totalEvents = subscribers.reduce((sum, s) => sum + s.count, 0);
  return {
    type: 'report',
    subscribers: subscribers.length,
    complete,
    lost,
    reordered,
    unfinished: subscribers.filter((s) => !s.done).length,
    firstProblem,
    ackToReceive: percentiles(ackLat),
    sendToReceive: percentiles(sendLat),
    spread: percentiles(spreads),
    payloadChecked: subscribers[0] !== undefined && subscribers[0].count === expected && subscribers[0].problem === null,
    bytesPerEvent: totalEvents ? totalBytes / totalEvents : 0,
    clientCpuMsPerEvent: expected ? cpuMs / expected : 0,
  };
}

function percentiles(values: number[]): Percentiles {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  return { p50: quantile(values, 0.5), p99: quantile(values, 0.99), max };
}

if (!process.send) throw new Error('the subscriber script runs as a child of the stream benchmark (no IPC channel)');
process.on('message', (msg: ToChild) => {
  const work = msg.type === 'connect' ? connect(msg) : collect(msg);
  work.catch((err: unknown) => {
    console.error('subscriber child failed:', err);
    process.exit(1);
  });
});
process.on('disconnect', () => process.exit(0));
