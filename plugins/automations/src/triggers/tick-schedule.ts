/**
 * A time trigger's ticks (the `TimeSchedule` of trigger-source.ts) over a slot rule: tick k is slot
 * `firstSlot + k`, where the first slot is the first at or after the anchor; ticks exist while
 * before `until` (exclusive) and the rule has slots; they fire while fewer than `count` scheduled
 * admissions happened. Every answer is O(1) in the number of ticks (a year of downtime on a
 * per-minute rule costs the same as one minute), plus the `limit` ticks `due` lists.
 */
import type { DueTicks, ScheduleState, TickAt, TimeSchedule } from './trigger-source.js';
import type { SlotRule } from './slot-rules.js';
import { MAX_SCHEDULE_MS } from './config-fields.js';

export interface TickScheduleOptions {
  rule: SlotRule;
  anchorMs: number;
  /** Exclusive bound, null when none. */
  untilMs: number | null;
  /** Scheduled admissions allowed, null when unbounded. */
  count: number | null;
  timeZone: string;
}

export class TickSchedule implements TimeSchedule {
  readonly timeZone: string;
  private readonly rule: SlotRule;
  private readonly anchor: string;
  private readonly firstSlot: number;
  /** The last tick that exists (-1 when none does; Infinity when unbounded). */
  private readonly lastTick: number;
  private readonly count: number | null;

  constructor(options: TickScheduleOptions) {
    this.rule = options.rule;
    this.timeZone = options.timeZone;
    this.anchor = new Date(options.anchorMs).toISOString();
    this.count = options.count;
    this.firstSlot = this.rule.atOrBefore(options.anchorMs - 1) + 1;
    let lastSlot = this.rule.lastSlot;
    if (options.untilMs !== null) lastSlot = Math.min(lastSlot, this.rule.atOrBefore(options.untilMs - 1));
    // No tick after year 9999 (also for a config stored before that bound was checked): its ISO time would sort before now in the wake index.
    lastSlot = Math.min(lastSlot, this.rule.atOrBefore(MAX_SCHEDULE_MS));
    this.lastTick = Math.max(-1, lastSlot - this.firstSlot);
  }

  arm(): ScheduleState {
    return { anchor: this.anchor, tick: 0, scheduled_count: 0, exhausted: this.lastTick < 0 || this.count === 0 };
  }

  tickAt(tick: number): TickAt | null {
    if (!Number.isSafeInteger(tick) || tick < 0 || tick > this.lastTick) return null;
    const atMs = this.rule.at(this.firstSlot + tick);
    return { tick, at_ms: atMs, scheduled_at: new Date(atMs).toISOString() };
  }

  pending(state: ScheduleState): TickAt | null {
    return this.canFire(state) ? this.tickAt(state.tick) : null;
  }

  nextAfter(state: ScheduleState, timeMs: number): TickAt | null {
    if (!this.canFire(state)) return null;
    return this.tickAt(Math.max(state.tick, this.tickAtOrBefore(timeMs) + 1));
  }

  rearm(state: ScheduleState, nowMs: number): ScheduleState {
    const next = this.nextAfter(state, nowMs);
    if (next === null) return { ...state, exhausted: true };
    return { ...state, tick: next.tick, exhausted: false };
  }

  due(state: ScheduleState, nowMs: number, limit: number): DueTicks | null {
    const first = this.pending(state);
    if (first === null || first.at_ms > nowMs) return null;
    const latestTick = Math.min(this.tickAtOrBefore(nowMs), this.lastTick);
    const latest = this.tickAt(latestTick)!;
    const dueCount = latestTick - first.tick + 1;
    const admissible = this.count === null ? Infinity : this.count - state.scheduled_count;
    const listed = Math.max(0, Math.min(limit, dueCount, admissible));
    const ticks: TickAt[] = [];
    for (let k = 0; k < listed; k++) ticks.push(k === 0 ? first : this.tickAt(first.tick + k)!);
    return { first, latest, due_count: dueCount, missed_count: dueCount - 1, ticks };
  }

  advance(state: ScheduleState, through: number, admitted: number): ScheduleState {
    const tick = Math.max(state.tick, through + 1);
    const scheduledCount = state.scheduled_count + admitted;
    const exhausted = tick > this.lastTick || (this.count !== null && scheduledCount >= this.count);
    return { anchor: state.anchor, tick, scheduled_count: scheduledCount, exhausted };
  }

  /** The largest tick at or before an instant (-1 when the first is after it); unbounded above. */
  private tickAtOrBefore(timeMs: number): number {
    return Math.max(-1, this.rule.atOrBefore(timeMs) - this.firstSlot);
  }

  private canFire(state: ScheduleState): boolean {
    return !state.exhausted && (this.count === null || state.scheduled_count < this.count);
  }
}
