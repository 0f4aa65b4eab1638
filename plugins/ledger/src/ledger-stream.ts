/**
 * `GET /runs/{run_id}/ledger/stream` (seed 000 §6): `step` events with `id: <cursor>` whose data
 * is the record with its cursor; resume by `Last-Event-ID` or `?after=` with nothing lost or
 * repeated; the tree's `llm.delta` / `llm.delta_end` frames (snapshots first on every connect);
 * `done` strictly last. Push-driven: the hub wakes the stream; records are read from LMDB then.
 */
import { encodeSse, lastEventId, openSse, type SseStream } from '@keel/plugin-sdk';
import type { LedgerStore } from './ledger-store.js';
import type { HubMessage, LiveHub } from './live-hub.js';
import type { RunMeta } from './records.js';
import type { FrameCache } from './frame-cache.js';

type KoaContext = Parameters<typeof openSse>[0];

export interface StreamOptions {
  after: number;
  heartbeatMs: number;
  signal: AbortSignal;
}

export async function streamLedger(koa: KoaContext, meta: RunMeta, store: LedgerStore, hub: LiveHub, frames: FrameCache, options: StreamOptions): Promise<void> {
  const sse = openSse(koa, { signal: options.signal, heartbeatMs: options.heartbeatMs });
  const inTree = (runId: string) => store.inSubtree(runId, meta.run_id);
  let cursor = options.after;
  let pumping = false;
  let wake = false;

  const pump = () => {
    // Reads every record past the cursor; a wake-up during a pump runs it once more.
    if (pumping) {
      wake = true;
      return;
    }
    pumping = true;
    try {
      do {
        wake = false;
        for (;;) {
          const page = store.page(meta.run_id, cursor, 500);
          for (const item of page.items) sse.send(frames.step(meta.run_id, item));
          cursor = page.next_after;
          if (page.items.length < 500 || sse.closed) break;
        }
        const current = store.runMeta(meta.run_id);
        if (current?.terminal && !sse.closed && cursor >= store.count(meta.run_id)) {
          sse.send(encodeSse({ event: 'done', data: { run_id: meta.run_id, cursor, status: 'terminal' } }));
          sse.close();
        }
      } while (wake && !sse.closed);
    } finally {
      pumping = false;
    }
  };

  const onMessage = (message: HubMessage) => {
    if (sse.closed) return;
    if (message.type === 'live') {
      if (inTree(message.run_id)) sse.send(message.frame);
    } else if (message.run_id === meta.run_id) {
      pump();
    }
  };

  const unsubscribe = hub.subscribe(meta.root_run_id, onMessage);
  try {
    for (const frame of hub.snapshots(meta.root_run_id, inTree)) sse.send(frame);
    pump();
    await sse.done;
  } finally {
    unsubscribe();
  }
}

/** The resume cursor of a stream request: Last-Event-ID, else `?after=`, else 0. */
export function resumeCursor(koa: KoaContext): number {
  const raw = lastEventId(koa);
  const n = raw === null ? 0 : Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : -1;
}

export type { SseStream };
