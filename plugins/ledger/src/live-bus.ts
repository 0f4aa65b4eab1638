/**
 * The live bus: the one owner of a run tree's live traffic (record appends, token deltas and
 * terminal marks, keyed by root run). Publishers (the ledger store, gateway-runs' runtime) hand it
 * messages; it passes each to its transport (`live-transport.ts`), which delivers it here and,
 * when runs execute in another process, across. Delivery is push-driven: an append wakes the tree's
 * subscribers; no timer re-reads the ledger. Delta frames are serialised once here and the same
 * bytes go to every subscriber. Open LLM calls keep their text so far, for the snapshot frames a
 * (re)connecting client gets first (whichever process published them).
 */
import { encodeSse } from '@keel/plugin-sdk';
import type { DeltaEndEvent, DeltaEvent, LiveEvent } from './records.js';
import { InProcessTransport, type Gate, type LiveMessage, type LiveNudge, type LiveReceiver, type LiveTransport } from './live-transport.js';

export type { Gate } from './live-transport.js';

export type LiveBusMessage =
  | { type: 'append'; run_id: string; cursor: number }
  | { type: 'live'; run_id: string; event: LiveEvent; frame: Buffer; gate?: Gate }
  | { type: 'terminal'; run_id: string };

export type LiveListener = (message: LiveBusMessage) => void;

/**
 * How this process takes part when runs execute in one process and streams are served by another
 * on the same data directory: `producer` executes runs (its traffic goes out, nudges come in),
 * `consumer` serves streams of runs the producer executes (its traffic comes in, nudges go out).
 */
export type LiveRole = 'producer' | 'consumer';

/** A transport for a role; the ledger plugin picks it (files under `<data>/live/` today). */
export type TransportFactory = (role: LiveRole, receiver: LiveReceiver) => LiveTransport;

/** An LLM call still streaming. */
export interface OpenCall {
  call_id: string;
  /** The seq of its last frame. */
  seq: number;
  /** The fields every frame of the call carries. */
  base: Omit<DeltaEvent, 'seq' | 'text' | 'channel' | 'snapshot' | 'kind'>;
}

/** The bus as other plugins see it (`liveBusToken`). */
export interface LiveBus {
  /** A live delta of an open call. */
  publishDelta(event: DeltaEvent): void;
  /** Ends a call: after its durable record (`gate`: the record a subscriber must hold first), or synthetically when its run stopped mid-call. */
  publishEnd(event: DeltaEndEvent, gate?: Gate): void;
  /** Calls still open for a run (to close them synthetically when the run stops). */
  openCallsOf(runId: string): OpenCall[];
  /** Hears a run tree's traffic (appends, live frames, terminal marks); returns the unsubscribe. */
  subscribe(rootRunId: string, listener: LiveListener): () => void;
  /**
   * Joins the other processes on this data directory in `role` (see `LiveRole`); a `producer` hears
   * nudges through `onNudge`. A consumer has replayed the traffic in flight when this returns.
   * `leave()` goes back to in-process, finishing what is queued.
   */
  join(role: LiveRole, onNudge?: (nudge: LiveNudge) => void): LiveMembership;
  /** Nudges the process that executes runs (a producer on the same data directory). */
  nudge(nudge: LiveNudge): void;
}

export interface LiveMembership {
  leave(): Promise<void>;
}

interface CallText extends OpenCall {
  text: Record<'content' | 'reasoning', string>;
}

export class LedgerLiveBus implements LiveBus, LiveReceiver {
  private readonly listeners = new Map<string, Set<LiveListener>>();
  private readonly openCalls = new Map<string, CallText>();
  private readonly inProcess = new InProcessTransport(this);
  private transport: LiveTransport = this.inProcess;
  private onNudge: ((nudge: LiveNudge) => void) | null = null;

  constructor(private readonly transports: TransportFactory) {}

  join(role: LiveRole, onNudge?: (nudge: LiveNudge) => void): LiveMembership {
    if (this.transport !== this.inProcess) throw new Error('the live bus has already joined other processes');
    this.onNudge = onNudge ?? null;
    const transport = this.transports(role, this);
    this.transport = transport;
    return {
      leave: async () => {
        if (this.transport !== transport) return;
        this.transport = this.inProcess;
        this.onNudge = null;
        await transport.close();
      },
    };
  }

  /** Finishes what the transport has queued (the plugin's stop). */
  async close(): Promise<void> {
    const transport = this.transport;
    this.transport = this.inProcess;
    this.onNudge = null;
    await transport.close();
  }

  nudge(nudge: LiveNudge): void {
    this.transport.nudge(nudge);
  }

  subscribe(rootRunId: string, listener: LiveListener): () => void {
    let set = this.listeners.get(rootRunId);
    if (!set) this.listeners.set(rootRunId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(rootRunId) === set) this.listeners.delete(rootRunId);
    };
  }

  /** A record was appended (and its commit is durable). */
  publishAppend(rootRunId: string, runId: string, cursor: number): void {
    this.transport.send({ t: 'append', root: rootRunId, run_id: runId, cursor });
  }

  /** A run ended: its ledger is complete. */
  publishTerminal(rootRunId: string, runId: string): void {
    this.transport.send({ t: 'terminal', root: rootRunId, run_id: runId });
  }

  publishDelta(event: DeltaEvent): void {
    this.transport.send({ t: 'delta', event });
  }

  publishEnd(event: DeltaEndEvent, gate?: Gate): void {
    this.transport.send({ t: 'end', event, ...(gate ? { gate } : {}) });
  }

  /** One snapshot frame per open call and channel of the tree (rule 3 of seed 000 §6). */
  snapshots(rootRunId: string, include: (runId: string) => boolean): Buffer[] {
    const frames: Buffer[] = [];
    for (const call of this.openCalls.values()) {
      if (call.base.root_run_id !== rootRunId || !include(call.base.run_id)) continue;
      for (const channel of ['content', 'reasoning'] as const) {
        if (!call.text[channel] && channel === 'reasoning') continue;
        const event: DeltaEvent = { kind: 'llm.delta', ...call.base, seq: call.seq, text: call.text[channel], channel, snapshot: true };
        frames.push(encodeSse({ event: 'llm.delta', data: event }));
      }
    }
    return frames;
  }

  openCallsOf(runId: string): OpenCall[] {
    return [...this.openCalls.values()].filter((c) => c.base.run_id === runId).map(({ call_id, seq, base }) => ({ call_id, seq, base }));
  }

  /** A message of this process or of another one, from the transport: keep the open calls' text, wake the tree's subscribers. */
  deliver(message: LiveMessage): void {
    switch (message.t) {
      case 'append':
        return this.emit(message.root, { type: 'append', run_id: message.run_id, cursor: message.cursor });
      case 'terminal':
        return this.emit(message.root, { type: 'terminal', run_id: message.run_id });
      case 'delta': {
        const event = message.event;
        let call = this.openCalls.get(event.call_id);
        if (!call) {
          const { kind: _k, seq: _s, text: _t, channel: _c, snapshot: _n, ...base } = event;
          call = { call_id: event.call_id, base, seq: 0, text: { content: '', reasoning: '' } };
          this.openCalls.set(event.call_id, call);
        }
        call.seq = event.seq;
        call.text[event.channel] += event.text;
        return this.emitLive(event);
      }
      case 'end':
        this.openCalls.delete(message.event.call_id);
        return this.emitLive(message.event, message.gate);
    }
  }

  nudged(nudge: LiveNudge): void {
    this.onNudge?.(nudge);
  }

  private emitLive(event: LiveEvent, gate?: Gate): void {
    const frame = encodeSse({ event: event.kind, data: event });
    this.emit(event.root_run_id, { type: 'live', run_id: event.run_id, event, frame, ...(gate ? { gate } : {}) });
  }

  private emit(rootRunId: string, message: LiveBusMessage): void {
    const set = this.listeners.get(rootRunId);
    if (!set) return;
    for (const listener of [...set]) listener(message);
  }
}
