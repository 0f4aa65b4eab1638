/**
 * Refused posts per seat (reference §8.2 `refused_sends_1h`, `last_refusal` of `/admin/status`): an
 * in-memory ring of each seat's last `RING` refused posts and direct messages, so an operator can see
 * a seat that keeps trying and failing. A pause (423) is the operator's own doing and is not kept;
 * neither is a request refused before its handler runs (auth, validation).
 */
import { isHttpError, type AnyRoute } from '@keel/plugin-sdk';
import { nowSeconds } from '../ids.js';

const RING = 50;
const POSTING = new Set(['POST /channels/:channel/messages', 'POST /dms/:peer/messages']);

export interface Refusal {
  ts: number;
  channel: string;
  code: number;
  detail: string;
}

export class RefusedSends {
  private readonly bySeat = new Map<string, Refusal[]>();

  record(agent: string, refusal: Refusal): void {
    const ring = this.bySeat.get(agent) ?? [];
    ring.push(refusal);
    if (ring.length > RING) ring.shift();
    this.bySeat.set(agent, ring);
  }

  /** Refusals within the last `seconds`, and the newest refusal ever kept. */
  of(agent: string, seconds: number, now: number): { count: number; last: Refusal | null } {
    const ring = this.bySeat.get(agent) ?? [];
    return { count: ring.filter((r) => now - r.ts <= seconds).length, last: ring[ring.length - 1] ?? null };
  }

  /** Wraps the posting routes so their refusals are kept. */
  observed(routes: AnyRoute[]): AnyRoute[] {
    return routes.map((r) => (POSTING.has(`${r.method} ${r.path}`) ? {
      ...r,
      handler: async (ctx) => {
        try {
          return await r.handler(ctx);
        } catch (err) {
          const seat = (ctx.principal as { id?: string } | null)?.id;
          if (seat && isHttpError(err) && err.status !== 423) {
            const params = ctx.params as { channel?: string; peer?: string };
            const channel = params.channel ?? `dm:${[seat, params.peer ?? ''].sort().join('--')}`;
            this.record(seat, { ts: nowSeconds(), channel, code: err.status, detail: err.message });
          }
          throw err;
        }
      },
    } : r));
  }
}
