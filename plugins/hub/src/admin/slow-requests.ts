/**
 * The slow-request ring (reference §8.2 `GET /admin/slow`): every hub route is timed, and a request
 * whose handler took at least `thresholdMs` is kept, with a log line, in an in-memory ring of the
 * last `keep` such requests. Bounded by construction; empty after a restart.
 */
import type { AnyRoute, Logger } from '@keel/plugin-sdk';
import { nowSeconds } from '../ids.js';

export interface SlowRequest {
  method: string;
  path: string;
  /** Handler time in seconds, one decimal. */
  seconds: number;
  /** When the request started (epoch seconds). */
  at: number;
}

export interface SlowRequestSettings {
  thresholdMs: number;
  keep: number;
}

export class SlowRequests {
  private readonly ring: SlowRequest[] = [];

  constructor(private readonly settings: SlowRequestSettings, private readonly log: Logger) {}

  /** The ring, oldest first. */
  list(): SlowRequest[] {
    return [...this.ring];
  }

  record(method: string, path: string, startedAt: number, elapsedMs: number): void {
    if (elapsedMs < this.settings.thresholdMs || this.settings.keep === 0) return;
    const row = { method, path, seconds: Math.round(elapsedMs / 100) / 10, at: startedAt };
    this.ring.push(row);
    if (this.ring.length > this.settings.keep) this.ring.splice(0, this.ring.length - this.settings.keep);
    this.log.warn(`SLOW REQUEST ${method} ${path} took ${row.seconds.toFixed(1)}s`, { method, path, seconds: row.seconds });
  }

  /** Wraps every route so its handler is timed, whether it answers or refuses. */
  timed(routes: AnyRoute[]): AnyRoute[] {
    return routes.map((r) => ({
      ...r,
      handler: async (ctx) => {
        const startedAt = nowSeconds();
        const t0 = performance.now();
        try {
          return await r.handler(ctx);
        } finally {
          this.record(ctx.koa.method, ctx.koa.path, startedAt, performance.now() - t0);
        }
      },
    }));
  }
}
