/**
 * Server-Sent Events. `encodeSse` serialises an event once into bytes that can be written to
 * every subscriber; `openSse` takes over a Koa response with heartbeats and a bounded buffer:
 * a subscriber that cannot keep up is cut off instead of being buffered without limit. Producers
 * that can wait (a replay of stored events) pace themselves with `backedUp` and `drained()`.
 *
 * The host sees every stream opened this way (`StreamHost`): it caps open streams per account
 * (`openSse` throws its 429 before any byte is written, so the route's error shape answers) and
 * closes them all when it stops.
 */
import type Koa from 'koa';

/**
 * What a host puts on `ctx.state[STREAM_HOST_KEY]` to admit and track streams (the Keel kernel does;
 * a plain Koa app has none and streams are then unlimited). `admit` throws an `HttpError` to refuse
 * and returns the function that releases the stream's place.
 */
export interface StreamHost {
  admit(ctx: Koa.Context, stream: SseStream): () => void;
}

export const STREAM_HOST_KEY = 'keelStreamHost';

export interface SseEvent {
  event?: string;
  id?: string | number;
  /** Strings are sent as they are; anything else is JSON-serialised. */
  data: unknown;
  retry?: number;
}

/** Serialises one event to its wire bytes (multi-line data split into `data:` lines). */
export function encodeSse(event: SseEvent): Buffer {
  let out = '';
  if (event.event !== undefined) out += `event: ${event.event}\n`;
  if (event.id !== undefined) out += `id: ${event.id}\n`;
  if (event.retry !== undefined) out += `retry: ${event.retry}\n`;
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
  for (const line of data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return Buffer.from(out + '\n', 'utf8');
}

/** The resume cursor a client asked for: `Last-Event-ID` wins over `?after=`; null when neither. */
export function lastEventId(ctx: Koa.Context, queryKey = 'after'): string | null {
  const header = ctx.get('last-event-id');
  if (header) return header;
  const q = ctx.query[queryKey];
  return typeof q === 'string' && q !== '' ? q : null;
}

export interface SseOptions {
  /** Interval of `: ping` comments that keep proxies from closing an idle stream (default 15 s; 0 = off). */
  heartbeatMs?: number;
  /** Bytes the socket may hold unsent before the subscriber is cut off (default 4 MiB). */
  maxBufferedBytes?: number;
  /**
   * Unsent bytes at which `backedUp` turns true (default a quarter of `maxBufferedBytes`). A producer
   * that writes only while `backedUp` is false, and otherwise waits for `drained()`, is never cut off:
   * one event is always accepted below this mark, however large.
   */
  pauseBytes?: number;
  /** Closes the stream when aborted (pass the route's signal so kernel stop ends streams). */
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export type SseCloseReason = 'client' | 'server' | 'slow_consumer' | 'aborted';

export class SseStream {
  private readonly res: Koa.Context['res'];
  /** Made on the first `signal` read: aborting one nobody holds would only build a DOMException per stream. */
  private controller: AbortController | null = null;
  private readonly heartbeat: NodeJS.Timeout | undefined;
  private readonly maxBuffered: number;
  private readonly pauseBytes: number;
  private reason: SseCloseReason | null = null;
  private resolveDone!: (reason: SseCloseReason) => void;
  /** Resolves with the reason once the stream is closed, whoever closed it. */
  readonly done: Promise<SseCloseReason>;

  private readonly release: () => void;

  constructor(ctx: Koa.Context, options: SseOptions = {}) {
    this.res = ctx.res;
    this.maxBuffered = options.maxBufferedBytes ?? 4 * 1024 * 1024;
    this.pauseBytes = options.pauseBytes ?? Math.floor(this.maxBuffered / 4);
    // First, while a refusal can still be an ordinary error response.
    this.release = (ctx.state[STREAM_HOST_KEY] as StreamHost | undefined)?.admit(ctx, this) ?? (() => {});
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    ctx.respond = false;
    const socket = ctx.req.socket;
    socket.setTimeout(0);
    socket.setNoDelay(true);
    // The headers leave with what the route writes in this turn of the event loop (a replay's first
    // frames, a `done`): one socket write instead of two, each a system call.
    socket.cork();
    setImmediate(() => socket.uncork());
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...options.headers,
    });
    this.res.flushHeaders();
    this.res.on('close', () => this.finish('client'));
    const heartbeatMs = options.heartbeatMs ?? 15_000;
    if (heartbeatMs > 0) {
      // A heartbeat only matters on an idle stream: none while the socket still holds data.
      this.heartbeat = setInterval(() => !this.backedUp && this.writeRaw(PING), heartbeatMs);
      this.heartbeat.unref();
    }
    if (options.signal) {
      if (options.signal.aborted) this.close('aborted');
      else options.signal.addEventListener('abort', () => this.close('aborted'), { once: true });
    }
  }

  /** Aborted when the stream closes for any reason; producers should stop on it. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort();
    }
    return this.controller.signal;
  }

  get closed(): boolean {
    return this.reason !== null;
  }

  /** Sends an event (or bytes from `encodeSse`); false once the stream is closed. */
  send(event: SseEvent | Buffer): boolean {
    return this.writeRaw(Buffer.isBuffer(event) ? event : encodeSse(event));
  }

  /** True while the socket holds `pauseBytes` or more unsent: wait for `drained()` before writing more. */
  get backedUp(): boolean {
    return !this.reason && this.res.writableLength >= this.pauseBytes;
  }

  /** Resolves once the socket has flushed what it held, or the stream closed. */
  drained(): Promise<void> {
    if (!this.backedUp) return Promise.resolve();
    const socket = this.res.socket;
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        socket?.off('drain', done);
        this.signal.removeEventListener('abort', done);
        resolve();
      };
      this.res.once('drain', done);
      socket?.once('drain', done);
      this.signal.addEventListener('abort', done, { once: true });
    });
  }

  comment(text: string): boolean {
    return this.writeRaw(Buffer.from(`: ${text.replace(/\n/g, ' ')}\n\n`, 'utf8'));
  }

  close(reason: SseCloseReason = 'server'): void {
    if (this.reason) return;
    this.finish(reason);
    if (reason === 'slow_consumer') this.res.destroy();
    else this.res.end();
  }

  private writeRaw(bytes: Buffer): boolean {
    if (this.reason) return false;
    if (this.res.writableLength >= this.pauseBytes && this.res.writableLength + bytes.length > this.maxBuffered) {
      this.close('slow_consumer');
      return false;
    }
    this.res.write(bytes);
    return true;
  }

  private finish(reason: SseCloseReason): void {
    if (this.reason) return;
    this.reason = reason;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.release();
    this.controller?.abort();
    this.resolveDone(reason);
  }
}

const PING = Buffer.from(': ping\n\n', 'utf8');

/** Takes over the response as an event stream. */
export function openSse(ctx: Koa.Context, options?: SseOptions): SseStream {
  return new SseStream(ctx, options);
}
