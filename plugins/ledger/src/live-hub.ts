/**
 * Push-driven fan-out of a run tree's live traffic: record appends, token deltas and terminal
 * marks, keyed by root run. An append wakes the tree's subscribers; no timer re-reads the ledger.
 * Delta frames are serialised once here and the same bytes go to every subscriber. Open LLM calls
 * keep their text so far, for the snapshot frames a (re)connecting client gets first.
 */
import { encodeSse } from '@keel/plugin-sdk';
import type { DeltaEndEvent, DeltaEvent, LiveEvent } from './records.js';

export type HubMessage =
  | { type: 'append'; run_id: string; cursor: number }
  | { type: 'live'; run_id: string; event: LiveEvent; frame: Buffer; gate?: Gate }
  | { type: 'terminal'; run_id: string };

type Listener = (message: HubMessage) => void;

/** A frame that may only follow a given ledger record (a delta end follows its call's record). */
export interface Gate {
  run_id: string;
  cursor: number;
}

/** What crosses to another process (a separate runner's traffic, relayed through `<data>/live/`). */
export type TapMessage =
  | { t: 'append'; root: string; run_id: string; cursor: number }
  | { t: 'delta'; event: DeltaEvent }
  | { t: 'end'; event: DeltaEndEvent; gate?: Gate }
  | { t: 'terminal'; root: string; run_id: string };

interface OpenCall {
  base: Omit<DeltaEvent, 'seq' | 'text' | 'channel' | 'snapshot' | 'kind'>;
  seq: number;
  text: Record<'content' | 'reasoning', string>;
}

export class LiveHub {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly openCalls = new Map<string, OpenCall>();
  private tap: ((message: TapMessage) => void) | null = null;

  /** Copies everything published here to another process (set by a separate runner). */
  setTap(tap: ((message: TapMessage) => void) | null): void {
    this.tap = tap;
  }

  /** Replays traffic another process published (the server side of a separate runner). */
  receive(message: TapMessage): void {
    if (message.t === 'append') this.emit(message.root, { type: 'append', run_id: message.run_id, cursor: message.cursor });
    else if (message.t === 'terminal') this.emit(message.root, { type: 'terminal', run_id: message.run_id });
    else if (message.t === 'delta') this.publishDelta(message.event, false);
    else this.publishEnd(message.event, false, message.gate);
  }

  subscribe(rootRunId: string, listener: Listener): () => void {
    let set = this.listeners.get(rootRunId);
    if (!set) this.listeners.set(rootRunId, (set = new Set()));
    set.add(listener);
    return () => {
      set!.delete(listener);
      if (set!.size === 0) this.listeners.delete(rootRunId);
    };
  }

  publishAppend(rootRunId: string, runId: string, cursor: number): void {
    this.tap?.({ t: 'append', root: rootRunId, run_id: runId, cursor });
    this.emit(rootRunId, { type: 'append', run_id: runId, cursor });
  }

  publishTerminal(rootRunId: string, runId: string): void {
    this.tap?.({ t: 'terminal', root: rootRunId, run_id: runId });
    this.emit(rootRunId, { type: 'terminal', run_id: runId });
  }

  /** A live delta of an open call. */
  publishDelta(event: DeltaEvent, relay = true): void {
    if (relay) this.tap?.({ t: 'delta', event });
    let call = this.openCalls.get(event.call_id);
    if (!call) {
      const { kind: _k, seq: _s, text: _t, channel: _c, snapshot: _n, ...base } = event;
      call = { base, seq: 0, text: { content: '', reasoning: '' } };
      this.openCalls.set(event.call_id, call);
    }
    call.seq = event.seq;
    call.text[event.channel] += event.text;
    this.emitLive(event);
  }

  /** Ends a call (after its durable record, or synthetically when its run stopped mid-call). */
  publishEnd(event: DeltaEndEvent, relay = true, gate?: Gate): void {
    if (relay) this.tap?.({ t: 'end', event, ...(gate ? { gate } : {}) });
    this.openCalls.delete(event.call_id);
    this.emitLive(event, gate);
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

  /** Calls still open for a run (to close them synthetically when the run stops). */
  openCallsOf(runId: string): Array<{ call_id: string; seq: number; base: OpenCall['base'] }> {
    return [...this.openCalls.entries()].filter(([, c]) => c.base.run_id === runId).map(([call_id, c]) => ({ call_id, seq: c.seq, base: c.base }));
  }

  private emitLive(event: LiveEvent, gate?: Gate): void {
    const frame = encodeSse({ event: event.kind, data: event });
    this.emit(event.root_run_id, { type: 'live', run_id: event.run_id, event, frame, ...(gate ? { gate } : {}) });
  }

  private emit(rootRunId: string, message: HubMessage): void {
    const set = this.listeners.get(rootRunId);
    if (!set) return;
    for (const listener of [...set]) listener(message);
  }
}
