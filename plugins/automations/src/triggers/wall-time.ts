/**
 * Wall-clock times in an IANA zone, with the daylight-saving rules of reference §3.4: a wall time
 * that does not exist (02:30 on a spring-forward day) is shifted forward by the gap (03:30), and a
 * wall time that happens twice (fall back) resolves to its FIRST instant, so it runs once.
 */
import { IANAZone } from 'luxon';

const DAY_MS = 86_400_000;

/** The zone's canonical IANA name, or null when it is not an IANA zone this runtime knows. */
export function canonicalZone(name: string): string | null {
  if (name.length === 0 || name.length > 64 || !IANAZone.isValidZone(name)) return null;
  // A fixed offset ("+01:00") is not a zone with daylight-saving rules; Intl spells the name canonically.
  if (!/^[A-Za-z]/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The zone's offset from UTC in minutes at an instant. */
export function offsetMinutes(zone: string, atMs: number): number {
  return IANAZone.create(zone).offset(atMs);
}

/** The local day number (days since 1970-01-01 in the zone's wall clock) of an instant. */
export function localDayNumber(zone: string, atMs: number): number {
  return Math.floor((atMs + offsetMinutes(zone, atMs) * 60_000) / DAY_MS);
}

/** The wall-clock fields of an instant in the zone. */
export function wallFields(zone: string, atMs: number): { year: number; month: number; day: number; hour: number; minute: number; weekday: number } {
  const local = new Date(atMs + offsetMinutes(zone, atMs) * 60_000);
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    // 0 = Monday ... 6 = Sunday.
    weekday: (local.getUTCDay() + 6) % 7,
  };
}

/**
 * The instant of a wall time (`month` 1..12; `day` may be any day number Date.UTC accepts) in the zone.
 * Both offsets around the wall time are tried: the valid ones give the instants it names (two on a
 * fall-back day: the earlier wins); none valid means a gap, and the pre-gap offset lands after it.
 */
export function wallTimeToInstant(zone: string, year: number, month: number, day: number, hour: number, minute: number): number {
  const key = `${zone}|${year}|${month}|${day}|${hour}|${minute}`;
  let instant = resolved.get(key);
  if (instant === undefined) {
    if (resolved.size >= RESOLVED_MAX) resolved.clear();
    instant = resolveWallTime(zone, year, month, day, hour, minute);
    resolved.set(key, instant);
  }
  return instant;
}

/**
 * Resolved wall times: a pure function of its key that costs a few Intl calls, asked again and again
 * (each engine step compiles its schedule; many automations share a zone and a time of day).
 * Bounded: emptied when full.
 */
const resolved = new Map<string, number>();
const RESOLVED_MAX = 20_000;

function resolveWallTime(zone: string, year: number, month: number, day: number, hour: number, minute: number): number {
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0..99 as 1900..1999.
  const wall = new Date(0).setUTCFullYear(year, month - 1, day) + (hour * 60 + minute) * 60_000;
  const before = offsetMinutes(zone, wall - DAY_MS);
  const after = offsetMinutes(zone, wall + DAY_MS);
  let best: number | null = null;
  for (const offset of before === after ? [before] : [before, after]) {
    const candidate = wall - offset * 60_000;
    if (offsetMinutes(zone, candidate) === offset && (best === null || candidate < best)) best = candidate;
  }
  return best ?? wall - before * 60_000;
}

/** The wall time of the zone's local day number `dayNumber` at `HH:MM`. */
export function dayAt(zone: string, dayNumber: number, hour: number, minute: number): number {
  const date = new Date(dayNumber * DAY_MS);
  return wallTimeToInstant(zone, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), hour, minute);
}
