/**
 * Reading a trigger config field by field, each refusal a 422 `invalid_definition` naming the field
 * (`trigger.config.<key>`): timestamps (RFC 3339 with an explicit offset), intervals
 * (`^[1-9][0-9]*[smhd]$`, at most 366 days), counts, wall times (`HH:MM`).
 */
import { triggerRefusal } from './refusal.js';

export const CONFIG_FIELD = 'trigger.config';
export const MAX_EVERY_MS = 366 * 86_400_000;
export const MAX_COUNT = 1_000_000;
/**
 * The instants a schedule may name: UTC years 0000..9999. Outside them `toISOString()` writes a
 * signed six-digit year ("+010000-…"), which sorts before every four-digit year: the wake index
 * (ISO strings in key order) would then read such an automation as due at every look, forever.
 */
/** 0000-01-01T00:00:00.000Z */
export const MIN_SCHEDULE_MS = -62_167_219_200_000;
/** 9999-12-31T23:59:59.999Z */
export const MAX_SCHEDULE_MS = 253_402_300_799_999;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const EVERY = /^([1-9][0-9]*)([smhd])$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const WALL_TIME = /^([01][0-9]|2[0-3]):([0-5][0-9])$/;

export function fieldOf(key: string): string {
  return `${CONFIG_FIELD}.${key}`;
}

/** The config as an object without keys outside `allowed`. */
export function configObject(config: unknown, allowed: readonly string[], sourceName: string): Record<string, unknown> {
  if (config === undefined || config === null) return {};
  if (typeof config !== 'object' || Array.isArray(config)) {
    throw triggerRefusal('invalid_definition', `The ${sourceName} trigger's config must be an object.`, CONFIG_FIELD);
  }
  const object = config as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) {
      const known = allowed.length > 0 ? `it takes ${allowed.join(', ')}` : 'it takes no fields';
      throw triggerRefusal('invalid_definition', `The ${sourceName} trigger has no config field "${key.slice(0, 100)}"; ${known}.`, fieldOf(key.slice(0, 100)));
    }
  }
  return object;
}

/** An RFC 3339 timestamp with an explicit offset, as epoch ms. */
export function timestampOf(value: unknown, key: string): number {
  const match = typeof value === 'string' ? RFC3339.exec(value) : null;
  const ms = match ? Date.parse(value as string) : NaN;
  // Date.parse rolls "02-30" over; the fields must round-trip to be a real date.
  if (!match || Number.isNaN(ms) || !isRealDate(Number(match[1]), Number(match[2]), Number(match[3])) || Number(match[4]) > 23 || Number(match[5]) > 59 || Number(match[6]) > 59) {
    throw triggerRefusal('invalid_definition', `${key} must be an RFC 3339 timestamp with an explicit offset, for example 2026-03-29T08:00:00+02:00 or 2026-03-29T06:00:00Z.`, fieldOf(key));
  }
  return instantInRange(ms, key);
}

/** An instant a schedule may name (UTC years 0000..9999, see MIN_SCHEDULE_MS), else 422 naming `key`. */
export function instantInRange(ms: number, key: string): number {
  if (ms < MIN_SCHEDULE_MS || ms > MAX_SCHEDULE_MS) {
    throw triggerRefusal('invalid_definition', `${key} must fall between the years 0000 and 9999 in UTC (0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z).`, fieldOf(key));
  }
  return ms;
}

/** An interval `<n><s|m|h|d>`, at most 366 days, in ms. */
export function everyOf(value: unknown): number {
  const match = typeof value === 'string' ? EVERY.exec(value) : null;
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : NaN;
  if (!match || !Number.isSafeInteger(ms) || ms > MAX_EVERY_MS) {
    throw triggerRefusal('invalid_definition', 'every must be a whole number followed by s, m, h or d (for example 30m or 1d), at most 366d.', fieldOf('every'));
  }
  return ms;
}

/** `count`: a whole number 1..1,000,000. */
export function countOf(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_COUNT) {
    throw triggerRefusal('invalid_definition', `count must be a whole number from 1 to ${MAX_COUNT.toLocaleString('en-US')}.`, fieldOf('count'));
  }
  return value;
}

/** A wall time `HH:MM` (24-hour). */
export function wallTimeOf(value: unknown, key = 'at'): { hour: number; minute: number; text: string } {
  const match = typeof value === 'string' ? WALL_TIME.exec(value) : null;
  if (!match) throw triggerRefusal('invalid_definition', `${key} must be a 24-hour wall time HH:MM, for example 08:00.`, fieldOf(key));
  return { hour: Number(match[1]), minute: Number(match[2]), text: value as string };
}

export function isRealDate(year: number, month: number, day: number): boolean {
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0..99 as 1900..1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** UTC ISO of epoch ms (how stored configs carry instants). */
export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}
