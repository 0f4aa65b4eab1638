/**
 * Durations written as text (`"90s"`, `"5 minutes"`, `"1.5h"`, `"2 days"`, `"1 week"`), parsed by the
 * `ms` package for every place a run reads one: schedule intervals and `wait_until` nodes.
 */
import ms from 'ms';

/** Milliseconds, or null when `text` is not a number followed by a unit, or is negative. */
export function parseDuration(text: string): number | null {
  const trimmed = text.trim();
  // `ms` reads a bare number as milliseconds; a duration here always names its unit.
  if (!/^[\d.]+\s*[a-z]+$/i.test(trimmed)) return null;
  const value = ms(trimmed.replace(/\s+/, ' ') as ms.StringValue);
  return Number.isFinite(value) && value >= 0 ? value : null;
}
