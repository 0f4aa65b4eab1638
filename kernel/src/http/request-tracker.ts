/**
 * Gives every request an id and an AbortSignal (aborted when the client goes away or the
 * kernel stops), and counts requests in flight so stop can let them finish.
 */
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import { LazyAbort } from './lazy-abort.js';

export const REQUEST_ID_KEY = 'keelRequestId';
export const SIGNAL_KEY = 'keelSignal';

export class RequestTracker {
  private inFlight = 0;
  private readonly idleWaiters = new Set<() => void>();
  /** Open requests' aborts. A Set costs far less per request than a listener on a shared AbortSignal. */
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

  middleware(): Koa.Middleware {
    return async (ctx, next) => {
      const incoming = ctx.get('x-request-id');
      const id = /^[A-Za-z0-9._-]{1,128}$/.test(incoming) ? incoming : randomUUID();
      ctx.state[REQUEST_ID_KEY] = id;
      ctx.set('x-request-id', id);

      const abort = new LazyAbort();
      if (this.stopped) abort.abort(new Error('kernel stopping'));
      else this.open.add(abort);
      // A getter, so the signal is only built for requests whose code reads it.
      Object.defineProperty(ctx.state, SIGNAL_KEY, { get: () => abort.signal, enumerable: true, configurable: true });

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
      await next();
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
