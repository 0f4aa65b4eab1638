/**
 * What both stream servers do with a run: produce `count` events at `ratePerSec`, on a schedule
 * of absolute times (a slow event does not shift the ones after it), and report when each event
 * was sent and when it was acknowledged (the moment fan-out may begin), as wall-clock ms.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { wallMs } from '../ledger/kit.js';

export interface PublishBody {
  count: number;
  ratePerSec: number;
}

export interface PublishResult {
  /** When event i (cursor i + 1) was handed to the server (its record built and submitted). */
  sent: number[];
  /** When event i was acknowledged: keel, the durable append's wake-up of the hub; raw, the start of its broadcast. */
  acks: number[];
}

/** The clock an event carries in its record's `result`, and its index. */
export interface EventStamp {
  bench_sent_at: number;
  bench_index: number;
}

/**
 * Calls `emit(i, stamp)` for i = 0..count-1 at the rate. `emit` may resolve late (a durable append);
 * the schedule does not wait for it, only the end does.
 */
export async function publishAtRate(body: PublishBody, emit: (i: number, stamp: EventStamp) => Promise<void> | void): Promise<number[]> {
  const intervalMs = 1000 / body.ratePerSec;
  const sent: number[] = [];
  const pending: Array<Promise<void> | void> = [];
  const start = performance.now() + intervalMs;
  for (let i = 0; i < body.count; i++) {
    const wait = start + i * intervalMs - performance.now();
    if (wait > 0) await sleep(wait);
    const at = wallMs();
    sent.push(at);
    pending.push(emit(i, { bench_sent_at: at, bench_index: i }));
  }
  await Promise.all(pending);
  return sent;
}
