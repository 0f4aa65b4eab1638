/**
 * The fields both schedule versions share: `start_at` (default now), `anchor` (must equal
 * `start_at`: any other anchor is `unsupported_feature`), `until` (exclusive, after `start_at`) and
 * `count` (scheduled admissions, 1..1,000,000).
 */
import { countOf, fieldOf, instantInRange, isoOf, timestampOf } from './config-fields.js';
import { triggerRefusal } from './refusal.js';

export interface ScheduleBounds {
  startMs: number;
  untilMs: number | null;
  count: number | null;
}

/** Reads the shared fields; `startMs` given when the kind fixes the start itself (a wall-time `once`). */
export function boundsOf(config: Record<string, unknown>, nowMs: number, startMs?: number): ScheduleBounds {
  let start = startMs ?? nowMs;
  if (config.start_at !== undefined) {
    const given = timestampOf(config.start_at, 'start_at');
    if (startMs !== undefined && given !== startMs) {
      throw triggerRefusal('invalid_definition', 'start_at and at name different times; give one of them.', fieldOf('start_at'));
    }
    start = given;
  }
  // A wall-time `once` names its instant in a zone: 9999-12-31T23:59 west of UTC is already year 10000.
  instantInRange(start, config.start_at === undefined && startMs !== undefined ? 'at' : 'start_at');
  if (config.anchor !== undefined && timestampOf(config.anchor, 'anchor') !== start) {
    throw triggerRefusal('unsupported_feature', 'An anchor other than start_at is not supported; leave anchor out (it is always start_at).', fieldOf('anchor'));
  }
  let untilMs: number | null = null;
  if (config.until !== undefined) {
    untilMs = timestampOf(config.until, 'until');
    if (untilMs <= start) throw triggerRefusal('invalid_definition', 'until must be after start_at (the schedule would never run).', fieldOf('until'));
  }
  const count = config.count === undefined ? null : countOf(config.count);
  return { startMs: start, untilMs, count };
}

/** The stored form of the bounds: `start_at` and `anchor` always, `until` and `count` when set. */
export function storedBounds(bounds: ScheduleBounds): Record<string, unknown> {
  return {
    start_at: isoOf(bounds.startMs),
    anchor: isoOf(bounds.startMs),
    ...(bounds.untilMs !== null ? { until: isoOf(bounds.untilMs) } : {}),
    ...(bounds.count !== null ? { count: bounds.count } : {}),
  };
}

/** The bounds of a stored (normalised) config. */
export function storedBoundsOf(config: Record<string, unknown>): ScheduleBounds {
  return {
    startMs: Date.parse(String(config.anchor ?? config.start_at)),
    untilMs: typeof config.until === 'string' ? Date.parse(config.until) : null,
    count: typeof config.count === 'number' ? config.count : null,
  };
}
