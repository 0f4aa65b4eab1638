import { pythonJsonDumps } from '@keel/plugin-gateway-runs';

/**
 * The origin's texts are written by Python: `json.dumps(x, sort_keys=True)` (separators `, ` and
 * `: `, non-ASCII escaped) and `datetime.isoformat()` with microseconds and `+00:00`.
 */

/** `json.dumps(value, sort_keys=True)` as Python writes it (gateway-runs' shared renderer). */
export function pythonJson(value: unknown): string {
  return pythonJsonDumps(value, { sortKeys: true });
}

/** Now (or `date`) as Python's `datetime.now(timezone.utc).isoformat()`: `2026-11-24T19:41:00.123000+00:00`. */
export function isoNow(date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
}

/** Milliseconds of an ISO timestamp, NaN when it is not one. */
export function timeOf(text: unknown): number {
  return typeof text === 'string' && text ? Date.parse(text) : NaN;
}
