/**
 * The contract between trigger sources and their users (the definitions, the engine, the summary):
 * a source record as `GET /trigger-sources` lists it, config validation, and for `time` sources
 * the tick math the engine schedules with (reference gateway-surfaces §3.4).
 *
 * Ticks: a time trigger's firings are numbered 0, 1, 2, ... from its `anchor` (the stored
 * `config.anchor`, = `start_at`): tick 0 is the first rule time at or after the anchor and the tick
 * numbers are contiguous, so "how many ticks between" is a subtraction. Event id of a tick:
 * `schedule@<version>:<binding_id>:<tick>`, payload `{tick, scheduled_at}`.
 *
 * Times in and out are epoch milliseconds (the engine reads `core.clock.nowMs()`); `scheduled_at`
 * carries the same instant as a UTC ISO string.
 */
import type { TriggerBinding } from '../model.js';

export type TriggerKind = 'time' | 'manual' | 'event';

/** A row of `GET /trigger-sources`. */
export interface TriggerSourceRecord {
  /** `schedule`, `manual`, `event` (a binding names it as `source_id` + `source_version`). */
  id: string;
  version: number;
  label: string;
  capabilities: { kind: TriggerKind };
  /** JSON schema of `config`. */
  config_schema: Record<string, unknown>;
  /** JSON schema of what an occurrence receives as `input_data.trigger`. */
  event_schema: Record<string, unknown>;
  available: boolean;
  unavailable_reason?: string;
}

/** What a definition's trigger is normalised to (a `TriggerBinding` without its `binding_id`). */
export type NormalisedTrigger = Omit<TriggerBinding, 'binding_id'>;

/** What a source needs to normalise a config. */
export interface NormaliseContext {
  /** Creation (or preview) time: `start_at` defaults to it. */
  nowMs: number;
  /** The zone a `schedule@2` config without `time_zone` gets (the owner's zone). */
  ownerZone: string;
}

/** The persisted state of a time trigger (`AutomationRecord.trigger_state`). */
export interface ScheduleState {
  /** = `config.anchor` (UTC ISO): tick 0 is the first rule time at or after it. */
  anchor: string;
  /** The next pending tick: every tick below it was admitted, coalesced or skipped. */
  tick: number;
  /** Scheduled admissions so far (bounded by `config.count`). */
  scheduled_count: number;
  /** No tick will ever be due again (past `until`, `count` reached, a one-shot done). */
  exhausted: boolean;
}

export interface TickAt {
  tick: number;
  at_ms: number;
  /** UTC ISO of `at_ms`. */
  scheduled_at: string;
}

/** The ticks due at a time, from a state's pending tick (the engine applies its misfire policy). */
export interface DueTicks {
  /** The pending tick (`state.tick`). */
  first: TickAt;
  /** The largest due tick: largest k with T_k <= now, capped at the last tick before `until`. */
  latest: TickAt;
  /** Exact number of due ticks, `latest.tick - first.tick + 1` (>= 1). */
  due_count: number;
  /** Due ticks beyond the one that fires under `coalesce`: `due_count - 1`. */
  missed_count: number;
  /** The first `min(limit, due_count)` due ticks, oldest first (policy `all`). */
  ticks: TickAt[];
}

/** A time trigger's config compiled once (cheap to keep per automation). */
export interface TimeSchedule {
  /** The zone its wording uses (`config.time_zone` for schedule@2, UTC for schedule@1). */
  readonly timeZone: string;
  /** The state of a freshly bound trigger: pending tick 0 (the first tick at or after the anchor). */
  arm(): ScheduleState;
  /** The time of tick k, or null when it does not exist (k < 0, at or past `until`, beyond a one-shot). */
  tickAt(tick: number): TickAt | null;
  /** The pending tick (`state.tick`) if it can still fire, else null. Its time is the engine's next `wake_at`. */
  pending(state: ScheduleState): TickAt | null;
  /** The smallest tick strictly after `timeMs` (and not below `state.tick`) that can still fire, else null. */
  nextAfter(state: ScheduleState, timeMs: number): TickAt | null;
  /** After resume or revise: the pending tick becomes `nextAfter(state, nowMs)`; never catches up. */
  rearm(state: ScheduleState, nowMs: number): ScheduleState;
  /** The ticks due at `nowMs` (null when the pending tick is in the future or none is left). O(1) plus `limit`. */
  due(state: ScheduleState, nowMs: number, limit: number): DueTicks | null;
  /**
   * Marks every tick up to `through` as handled and counts `admitted` scheduled admissions
   * (coalesce: `through = latest.tick, admitted = 1`; skip: `admitted = 0`; all: one call per tick).
   * Sets `exhausted` when nothing can fire after it.
   */
  advance(state: ScheduleState, through: number, admitted: number): ScheduleState;
}

/** A trigger source: its record, and the normalisation of a config (422 with `field` on a refusal). */
export interface TriggerSource {
  readonly record: TriggerSourceRecord;
  /** Validates and normalises a config; throws the §3.10 422s (`field` is `trigger.config[.<key>]`). */
  normalise(config: unknown, context: NormaliseContext): Record<string, unknown>;
  /** A time source's compiled schedule of a NORMALISED config; undefined for other kinds. */
  compile?(config: Record<string, unknown>): TimeSchedule;
  /** An event source: whether an emitted event (of the automation owner's account) fires a binding with this config. */
  matches?(config: Record<string, unknown>, event: TriggerEvent): boolean;
  /** An event source: what the occurrence receives as `input_data.trigger` (its `event_schema`). */
  envelope?(event: TriggerEvent): Record<string, unknown>;
}

/** An event as an event source sees it (the fields of gateway-runs' `EmittedEvent` it reads). */
export interface TriggerEvent {
  account: string;
  event_id: string;
  name: string;
  session_id: string;
  payload: Record<string, unknown>;
  emitted_at: string;
  command_id: string;
}

/** `schedule@<version>:<binding_id>:<tick>`. */
export function scheduleEventId(sourceVersion: number, bindingId: string, tick: number): string {
  return `schedule@${sourceVersion}:${bindingId}:${tick}`;
}

/** The payload of a schedule tick's event (what the occurrence receives as `input_data.trigger`). */
export function scheduleEventPayload(tick: TickAt): { tick: number; scheduled_at: string } {
  return { tick: tick.tick, scheduled_at: tick.scheduled_at };
}
