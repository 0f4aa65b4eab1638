/**
 * `GET /runs/{run_id}/ledger/stream` (seed 000 §6): `step` events with `id: <cursor>` whose data
 * is the record with its cursor; resume by `Last-Event-ID` or `?after=` with nothing lost or
 * repeated; the tree's `llm.delta` / `llm.delta_end` frames (snapshots first on every connect);
 * `done` strictly last. Push-driven: an append wakes the run's shared tail, which reads and
 * serialises the new records once for every subscriber.
 */
import { encodeSse, lastEventId, openSse } from '@keel/plugin-sdk';
import type { LedgerStore } from './ledger-store.js';
import type { LiveBusMessage, LedgerLiveBus } from './live-bus.js';
import type { RunMeta } from './records.js';
import type { TailSubscriber } from './run-tail.js';
import type { TailRegistry } from './tail-registry.js';

type KoaContext = Parameters<typeof openSse>[0];

export interface StreamOptions {
  after: number;
  heartbeatMs: number;
  signal: AbortSignal;
}

export async function streamLedger(koa: KoaContext, meta: RunMeta, store: LedgerStore, hub: LedgerLiveBus, tails: TailRegistry, options: StreamOptions): Promise<void> {
  const sse = openSse(koa, { signal: options.signal, heartbeatMs: options.heartbeatMs });
  const inTree = (runId: string) => store.inSubtree(runId, meta.run_id);
  const tail = tails.open(meta.run_id);
  // Frames that must follow a record this subscriber has not received yet (rule 4 of §6).
  const held: Array<{ cursor: number; frame: Buffer }> = [];
  let waitingForDrain = false;
  const subscriber: TailSubscriber = {
    cursor: options.after,
    get open() {
      return !sse.closed;
    },
    get backedUp() {
      return sse.backedUp;
    },
    drained: () => sse.drained(),
    send: (frame: Buffer) => sse.send(frame),
    close: () => sse.close(),
    delivered: () => {
      if (sse.closed || waitingForDrain) return;
      // After a large frame, what follows it waits for the socket to drain (it would count as a slow consumer).
      if (sse.backedUp) {
        waitingForDrain = true;
        void sse.drained().then(() => {
          waitingForDrain = false;
          subscriber.delivered();
        });
        return;
      }
      while (held.length && held[0]!.cursor <= subscriber.cursor) sse.send(held.shift()!.frame);
      if (tail.complete && subscriber.cursor >= tail.cursor) {
        sse.send(encodeSse({ event: 'done', data: { run_id: meta.run_id, cursor: subscriber.cursor, status: 'terminal' } }));
        sse.close();
      }
    },
  };
  const onMessage = (message: LiveBusMessage) => {
    if (sse.closed) return;
    if (message.type === 'live') {
      if (!inTree(message.run_id)) return;
      if (message.gate && message.gate.run_id === meta.run_id && message.gate.cursor > subscriber.cursor) held.push({ cursor: message.gate.cursor, frame: message.frame });
      else sse.send(message.frame);
    }
    // Appends and the terminal mark of this run wake its shared tail, which listens to the hub itself.
  };
  const unsubscribe = hub.subscribe(meta.root_run_id, onMessage);
  try {
    for (const frame of hub.snapshots(meta.root_run_id, inTree)) sse.send(frame);
    tail.attach(subscriber);
    await sse.done;
  } finally {
    unsubscribe();
    tails.close(meta.run_id, subscriber);
  }
}

/** The resume cursor of a stream request: Last-Event-ID, else `?after=`, else 0. */
export function resumeCursor(koa: KoaContext): number {
  const raw = lastEventId(koa);
  const n = raw === null ? 0 : Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : -1;
}
