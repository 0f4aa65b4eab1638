// Path building: every identifier goes through encodeURIComponent; vfs paths are encoded per
// segment and re-joined with a literal `/`; queries are built with URLSearchParams.

/** One path segment (`dm:a--b` -> `dm%3Aa--b`, `a/b` -> `a%2Fb`). */
export function seg(value: string | number): string {
  return encodeURIComponent(String(value));
}

/** A vfs path, encoded per segment (`notes/plan v2.md` -> `notes/plan%20v2.md`). */
export function vfsPath(path: string): string {
  return path.split('/').map((part) => encodeURIComponent(part)).join('/');
}

export type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number>;

/** `?a=1&b=x+y` from the defined values (arrays repeat the key); "" when nothing is left. */
export function query(params: Record<string, QueryValue>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value as ReadonlyArray<string | number>) search.append(key, String(item));
    } else {
      search.append(key, String(value));
    }
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
