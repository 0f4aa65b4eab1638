/**
 * The members' side, run as a child process so it does not share an event loop with the server or
 * the poster: one WebSocket per member, every frame stamped on arrival and checked. Per socket a
 * phase's messages must each arrive exactly once, and the seq of consecutive frames must go up by
 * one (the channel's order; the poster's concurrency may reorder indices, never seqs).
 */
import { WebSocket } from 'ws';
import type { Percentiles } from '../common/child-messages.js';
import { openInBatches } from '../common/connect-batches.js';
import { wallMs } from '../ledger/kit.js';
import { checkFrame, scanFrame } from './frame.js';
import type { CollectMessage, ConnectMessage, ExpectMessage, FromChild, PhaseReport, ToChild } from './socket-protocol.js';

class Member {
  ws: WebSocket | null = null;
  closed = false;
  lastSeq = 0;
  /** Receive time minus send time per message of the phase (NaN: not received). */
  latency = new Float64Array(0);
  got = 0;
  duplicates = 0;
  reordered = 0;
  stray = 0;
  checked = false;
  problem: string | null = null;

  constructor(private readonly pool: Pool) {}

  open(url: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      ws.once('open', () => {
        this.ws = ws;
        resolve();
      });
      ws.once('error', (err) => (this.ws ? (this.problem ??= `socket error: ${err.message}`) : reject(err)));
      ws.once('close', (code, reason) => {
        this.closed = true;
        if (this.ws) this.problem ??= `socket closed: ${code} ${reason.toString()}`;
        else reject(new Error(`closed before open: ${code} ${reason.toString()}`));
        this.pool.progress();
      });
      ws.on('message', (data: Buffer, isBinary) => this.onFrame(isBinary ? Buffer.alloc(0) : data));
    });
  }

  reset(count: number): void {
    this.latency = new Float64Array(count).fill(Number.NaN);
    this.got = 0;
    this.duplicates = 0;
    this.reordered = 0;
    this.stray = 0;
    this.checked = false;
    this.problem = this.closed ? this.problem : null;
  }

  private onFrame(data: Buffer): void {
    const at = wallMs();
    const pool = this.pool;
    pool.bytes += data.length;
    pool.frames++;
    const f = scanFrame(data);
    const slot = f ? f.index - pool.first : -1;
    if (!f || slot < 0 || slot >= this.latency.length) {
      this.stray++;
      this.problem ??= `stray frame: ${data.toString('utf8', 0, 100)}`;
      return;
    }
    if (this.lastSeq !== 0 && f.seq !== this.lastSeq + 1) {
      this.reordered++;
      this.problem ??= `seq ${f.seq} after ${this.lastSeq}`;
    }
    this.lastSeq = Math.max(this.lastSeq, f.seq);
    if (!Number.isNaN(this.latency[slot]!)) {
      this.duplicates++;
      this.problem ??= `message ${f.index} twice`;
      return;
    }
    this.latency[slot] = at - f.sentMs;
    if (!this.checked) {
      this.checked = true;
      const wrong = checkFrame(data, f, pool.channel, pool.sender);
      if (wrong) this.problem ??= wrong;
    }
    if (++this.got === this.latency.length) {
      pool.lastCompleteAt = at;
      pool.progress();
    }
  }
}

class Pool {
  members: Member[] = [];
  channel = '';
  sender = '';
  first = 0;
  count = 0;
  bytes = 0;
  frames = 0;
  lastCompleteAt = Number.NaN;
  private cpuAtExpect = process.cpuUsage();
  private waiter: (() => void) | null = null;

  async connect(msg: ConnectMessage): Promise<void> {
    const started = performance.now();
    this.channel = msg.channel;
    this.sender = msg.sender;
    this.members = msg.urls.map(() => new Member(this));
    const { failed, firstError } = await openInBatches(this.members, msg.batch, (m, i) => m.open(msg.urls[i]!));
    this.members = this.members.filter((m) => m.ws !== null);
    send({ type: 'connected', opened: this.members.length, failed, firstError, ms: performance.now() - started });
  }

  expect(msg: ExpectMessage): void {
    this.first = msg.first;
    this.count = msg.count;
    this.bytes = 0;
    this.frames = 0;
    this.lastCompleteAt = Number.NaN;
    for (const m of this.members) m.reset(msg.count);
    this.cpuAtExpect = process.cpuUsage();
    send({ type: 'expecting' });
  }

  async collect(msg: CollectMessage): Promise<void> {
    const done = () => this.members.every((m) => m.got === this.count || m.closed);
    if (!done()) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => finish(), msg.timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          this.waiter = null;
          resolve();
        };
        this.waiter = () => {
          if (done()) finish();
        };
      });
    }
    const cpu = process.cpuUsage(this.cpuAtExpect);
    send(this.report((cpu.user + cpu.system) / 1000));
  }

  /** A socket completed its phase or closed: maybe the collect can answer. */
  progress(): void {
    this.waiter?.();
  }

  private report(cpuMs: number): PhaseReport {
    const all = new Float64Array(this.members.length * this.count);
    let n = 0;
    for (const m of this.members) for (const v of m.latency) if (!Number.isNaN(v)) all[n++] = v;
    // A frame that failed its full check (checkFrame) leaves its socket incomplete too.
    const complete = this.members.filter((m) => m.got === this.count && !m.duplicates && !m.reordered && !m.stray && !m.closed && !m.problem).length;
    const sum = (pick: (m: Member) => number) => this.members.reduce((s, m) => s + pick(m), 0);
    return {
      type: 'report',
      sockets: this.members.length,
      complete,
      lost: sum((m) => this.count - m.got),
      duplicates: sum((m) => m.duplicates),
      reordered: sum((m) => m.reordered),
      stray: sum((m) => m.stray),
      closed: sum((m) => (m.closed ? 1 : 0)),
      firstProblem: this.members.find((m) => m.problem)?.problem ?? null,
      latency: percentiles(all.subarray(0, n)),
      completedAt: complete === this.members.length ? this.lastCompleteAt : Number.NaN,
      cpuMs,
      frameBytes: this.frames ? this.bytes / this.frames : 0,
    };
  }
}

function percentiles(values: Float64Array): Percentiles {
  if (!values.length) return { p50: Number.NaN, p99: Number.NaN, max: Number.NaN };
  // A typed array sorts numerically, and far faster than a plain array of 200k numbers.
  const sorted = values.slice().sort();
  const q = (p: number) => {
    const at = (sorted.length - 1) * p;
    const lo = Math.floor(at);
    const hi = Math.ceil(at);
    return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
  };
  return { p50: q(0.5), p99: q(0.99), max: sorted[sorted.length - 1]! };
}

function send(msg: FromChild): void {
  process.send!(msg);
}

const pool = new Pool();
if (!process.send) throw new Error('the sockets script runs as a child of the hub benchmark (no IPC channel)');
process.on('message', (msg: ToChild) => {
  const work = msg.type === 'connect' ? pool.connect(msg) : msg.type === 'expect' ? Promise.resolve(pool.expect(msg)) : pool.collect(msg);
  work.catch((err: unknown) => {
    console.error('hub sockets child failed:', err);
    process.exit(1);
  });
});
process.on('disconnect', () => {
  for (const m of pool.members) m.ws?.terminate();
  process.exit(0);
});
