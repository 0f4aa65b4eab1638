/**
 * The opaque cursor of `sort=recent` with one kind: url-safe base64 of the last served hit's
 * keyset `[at, ref]`. Anything that does not decode to that shape is treated as no cursor, so a
 * malformed cursor restarts from the top instead of failing.
 */
export interface Keyset {
  at: number;
  ref: string;
}

export function encodeCursor(key: Keyset): string {
  return Buffer.from(JSON.stringify([key.at, key.ref])).toString('base64url');
}

export function decodeCursor(cursor: string | null): Keyset | null {
  if (!cursor || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'number' && Number.isFinite(value[0]) && typeof value[1] === 'string') {
      return { at: value[0], ref: value[1] };
    }
  } catch {
    // falls through: restart from the top
  }
  return null;
}

/** Newest first, ties broken by ref descending (message ids are time-ordered). */
export function compareRecent(a: Keyset, b: Keyset): number {
  return b.at - a.at || (a.ref < b.ref ? 1 : a.ref > b.ref ? -1 : 0);
}
