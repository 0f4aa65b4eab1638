/**
 * How live traffic travels. The live bus (`live-bus.ts`) hands every message of its process to one
 * transport, which delivers it to this process's subscribers and, when runs execute in another
 * process on the same data directory, carries it across. Transports:
 * - in-process (`InProcessTransport`, below): the default; nothing crosses.
 * - files under `<data>/live/` (`live-files-transport.ts`): a separate runner (`keel runner`) and
 *   `keel serve --no-runner`; seed 000 §6 rule 8.
 * - a database's notifications (a later PostgreSQL transport implements the same interface).
 */
import type { DeltaEndEvent, DeltaEvent } from './records.js';

/** A frame that may only follow a given ledger record (a delta end follows its call's record). */
export interface Gate {
  run_id: string;
  cursor: number;
}

/** One message of a run tree's live traffic; also the line format of the `<data>/live/<root>.jsonl` files. */
export type LiveMessage =
  | { t: 'append'; root: string; run_id: string; cursor: number }
  | { t: 'delta'; event: DeltaEvent }
  | { t: 'end'; event: DeltaEndEvent; gate?: Gate }
  | { t: 'terminal'; root: string; run_id: string };

/** A small JSON message for the process that executes runs (what it means is the sender's and receiver's business). */
export type LiveNudge = Record<string, unknown>;

/** What a transport hands its messages to in this process. */
export interface LiveReceiver {
  /** Delivers one message to this process's subscribers (in order, per run tree). */
  deliver(message: LiveMessage): void;
  /** Hands a nudge to this process's nudge listener (the process that executes runs). */
  nudged(nudge: LiveNudge): void;
}

export interface LiveTransport {
  /** Carries one message of this process's traffic: to this process's subscribers, and across when the transport reaches other processes. Never throws. */
  send(message: LiveMessage): void;
  /** Carries a nudge to the process that executes runs. Never throws. */
  nudge(nudge: LiveNudge): void;
  /** Stops hearing the other processes and finishes what is queued; idempotent. */
  close(): Promise<void>;
}

/** The root run a message belongs to. */
export function rootOf(message: LiveMessage): string {
  return message.t === 'append' || message.t === 'terminal' ? message.root : message.event.root_run_id;
}

/** Everything stays in this process: runs execute here, and streams are served here. */
export class InProcessTransport implements LiveTransport {
  constructor(private readonly receiver: LiveReceiver) {}

  send(message: LiveMessage): void {
    this.receiver.deliver(message);
  }

  nudge(nudge: LiveNudge): void {
    this.receiver.nudged(nudge);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
