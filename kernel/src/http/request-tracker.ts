/**
 * Gives every request an id and an AbortSignal (aborted when the client goes away or the
 * kernel stops), and counts requests in flight so stop can let them finish.
 */
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import { LazyAbort } from './lazy-abort.js';
import { lazyProperty } from './lazy-property.js';

export const REQUEST_ID_KEY = 'keelRequestId';
export const SIGNAL_KEY = 'keelSignal';

const ABORT = Symbol('keelAbort');
type State = Record<PropertyKey, unknown>;
/** `ctx.state[SIGNAL_KEY]`, built when first read: most requests never read it. */
const signalProperty = lazyProperty<State>(SIGNAL_KEY, (state) => (state[ABORT] as LazyAbort).signal);

export class RequestTracker {
  private inFlight = 0;
  private readonly idleWaiters = new Set<() => void>();
  /** Open requests' aborts. A Set costs less per request than a listener on a shared AbortSignal. */
  private readonly open = new Set<LazyAbort>();
  private stopped = false;

  get active(): number {
    return this.inFlight;
  }

  /** Aborts every open request's signal (kernel stop), and those of requests arriving later. */
  abortAll(): void {
    this.stopped = true;
    for (const abort of this.open) abort.abort(new Error('kernel stopping'));
  }

  // Request ids: a random per-process prefix and a counter, unique and far cheaper than a UUID each.
  private readonly idPrefix = randomUUID().slice(0, 8);
  private idCounter = 0;

  private nextId(): string {
    return `${this.idPrefix}-${(++this.idCounter).toString(36)}`;
  }

  /** Not an async function: `return next()` saves a promise per request, and errors still reach Koa as rejections. */
  middleware(): Koa.Middleware {
    return (ctx, next) => {
      const incoming = ctx.get('x-request-id');
      const id = incoming && /^[A-Za-z0-9._-]{1,128}$/.test(incoming) ? incoming : this.nextId();
      ctx.state[REQUEST_ID_KEY] = id;
      ctx.set('x-request-id', id);

      const abort = new LazyAbort();
      if (this.stopped) abort.abort(new Error('kernel stopping'));
      else this.open.add(abort);
      (ctx.state as State)[ABORT] = abort;
      Object.defineProperty(ctx.state, SIGNAL_KEY, signalProperty);

      this.inFlight++;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.open.delete(abort);
        if (!ctx.res.writableFinished) abort.abort(new Error('client disconnected'));
        this.inFlight--;
        if (this.inFlight === 0) for (const wake of this.idleWaiters) wake();
      };
      ctx.res.once('close', release);
      ctx.res.once('finish', release);
      return next();
    };
  }

  /** Resolves when no request is in flight, or false after `timeoutMs`. */
  drain(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.idleWaiters.delete(wake);
        resolve(ok);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.idleWaiters.add(wake);
    });
  }
}
