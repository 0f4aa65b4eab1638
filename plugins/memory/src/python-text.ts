/**
 * The origin's texts are written by Python: `json.dumps(x, sort_keys=True)` (separators `, ` and
 * `: `, non-ASCII escaped) and `datetime.isoformat()` with microseconds and `+00:00`.
 */

/** `json.dumps(value, sort_keys=True)` as Python writes it. */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return asciiJsonString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'NaN';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${asciiJsonString(k)}: ${pythonJson(v)}`).join(', ')}}`;
}

function asciiJsonString(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Now (or `date`) as Python's `datetime.now(timezone.utc).isoformat()`: `2026-11-24T19:41:00.123000+00:00`. */
export function isoNow(date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
}

/** Milliseconds of an ISO timestamp, NaN when it is not one. */
export function timeOf(text: unknown): number {
  return typeof text === 'string' && text ? Date.parse(text) : NaN;
}
