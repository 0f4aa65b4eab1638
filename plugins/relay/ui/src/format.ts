/** How numbers, durations, times and sizes read on the page. */

/** `3d 4h`, `4m 12s`, `45s`: the largest unit and the next one when it is not zero. */
export function duration(seconds: number): string {
  let rest = Math.max(0, Math.round(seconds));
  const units: Array<[string, number]> = [['d', 86_400], ['h', 3600], ['m', 60], ['s', 1]];
  const first = units.findIndex(([, size]) => rest >= size);
  if (first < 0) return '0s';
  const parts: string[] = [];
  for (const [unit, size] of units.slice(first, first + 2)) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n}${unit}`);
  }
  return parts.join(' ');
}

export function percent(value: number): string {
  return `${Math.round(value * 10) / 10}%`;
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function bytes(n: number): string {
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${BYTE_UNITS[unit]}`;
}

/** A local date and time for an ISO string or epoch seconds; the raw value when unreadable. */
export function when(value: string | number): string {
  const date = typeof value === 'number' ? new Date(value * 1000) : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** `14:03:22` for a record's `logged_at`. */
export function clock(value: unknown): string {
  const date = typeof value === 'string' ? new Date(value) : null;
  return date && !Number.isNaN(date.getTime()) ? date.toLocaleTimeString() : '';
}
