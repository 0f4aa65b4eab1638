/**
 * The time rules of the schedule sources as numbered slots: slot n happens at `at(n)`, slots
 * never go backwards in time, and `atOrBefore(t)` finds the last slot at or before an instant in
 * constant time (calendar arithmetic, then a few bounded corrections for daylight-saving shifts).
 * The tick schedule numbers ticks from the first slot at or after the anchor.
 */
import { dayAt, localDayNumber, wallFields, wallTimeToInstant } from './wall-time.js';

export interface SlotRule {
  /** The instant (ms) of slot n. */
  at(slot: number): number;
  /** The largest slot whose instant is at or before `timeMs`. */
  atOrBefore(timeMs: number): number;
  /** The last slot there is (a one-shot has one), Infinity when the rule repeats forever. */
  readonly lastSlot: number;
}

/** `T_n = anchor + n·every`, fixed lengths in UTC (no calendar, no daylight saving). */
export function everyRule(anchorMs: number, everyMs: number): SlotRule {
  return {
    at: (slot) => anchorMs + slot * everyMs,
    atOrBefore: (timeMs) => Math.floor((timeMs - anchorMs) / everyMs),
    lastSlot: Infinity,
  };
}

/** One slot (0) at an instant. */
export function onceRule(atMs: number): SlotRule {
  return { at: () => atMs, atOrBefore: (timeMs) => (timeMs >= atMs ? 0 : -1), lastSlot: 0 };
}

/** One slot per local day (slot = local day number) at `HH:MM` in the zone. */
export function dailyRule(zone: string, hour: number, minute: number): SlotRule {
  const at = (slot: number) => dayAt(zone, slot, hour, minute);
  return { at, atOrBefore: (timeMs) => corrected(at, localDayNumber(zone, timeMs), timeMs), lastSlot: Infinity };
}

/**
 * One slot per chosen weekday (0 = Monday ... 6 = Sunday, sorted, distinct) at `HH:MM`:
 * slot = week · days.length + position of the day, weeks counted from Monday 1969-12-29.
 */
export function weeklyRule(zone: string, days: number[], hour: number, minute: number): SlotRule {
  const perWeek = days.length;
  // Local day 0 (1970-01-01) is a Thursday: day d is in week floor((d + 3) / 7), weekday (d + 3) mod 7.
  const at = (slot: number) => {
    const week = Math.floor(slot / perWeek);
    const position = slot - week * perWeek;
    return dayAt(zone, week * 7 - 3 + days[position]!, hour, minute);
  };
  const atOrBefore = (timeMs: number) => {
    const day = localDayNumber(zone, timeMs);
    const week = Math.floor((day + 3) / 7);
    const weekday = day + 3 - week * 7;
    // Days of this week up to today; none means the previous week's last slot (week·n - 1).
    const upToToday = days.filter((d) => d <= weekday).length;
    return corrected(at, week * perWeek + upToToday - 1, timeMs);
  };
  return { at, atOrBefore, lastSlot: Infinity };
}

/** One slot per month (slot = year·12 + month - 1) on `day` (a day past the month's end: its last day; 'last') at `HH:MM`. */
export function monthlyRule(zone: string, day: number | 'last', hour: number, minute: number): SlotRule {
  const at = (slot: number) => {
    const year = Math.floor(slot / 12);
    const month = slot - year * 12 + 1;
    const lastDay = new Date(new Date(0).setUTCFullYear(year, month, 0)).getUTCDate();
    return wallTimeToInstant(zone, year, month, day === 'last' ? lastDay : Math.min(day, lastDay), hour, minute);
  };
  const atOrBefore = (timeMs: number) => {
    const wall = wallFields(zone, timeMs);
    return corrected(at, wall.year * 12 + wall.month - 1, timeMs);
  };
  return { at, atOrBefore, lastSlot: Infinity };
}

/**
 * From a guess (the slot of the instant's local calendar unit), the largest slot at or before the
 * instant: a daylight-saving shift moves a slot by hours at most, so a few steps settle it.
 */
function corrected(at: (slot: number) => number, guess: number, timeMs: number): number {
  let slot = guess;
  for (let i = 0; i < 4 && at(slot) > timeMs; i++) slot--;
  for (let i = 0; i < 4 && at(slot + 1) <= timeMs; i++) slot++;
  return slot;
}
