// Where the hub lives: the base URL (page origin by default, a relative base being a host proxy
// prefix resolved against the page origin) and the live-socket URL derived from it.

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:/i;

/** The page origin: the explicit one when given, else `globalThis.location.origin` (null in Node or on opaque origins). */
export function pageOrigin(explicit?: string | null): string | null {
  if (explicit) return explicit.replace(/\/+$/, '');
  const origin = (globalThis as { location?: { origin?: unknown } }).location?.origin;
  return typeof origin === 'string' && origin !== '' && origin !== 'null' ? origin : null;
}

/**
 * The absolute hub base without a trailing slash (`https://host:8443/hub`), or null when the base is
 * relative (or absent) and there is no page origin to resolve it against. Query and fragment are dropped.
 */
export function resolveBaseUrl(baseUrl: string | null | undefined, origin?: string | null): string | null {
  const base = (baseUrl ?? '').trim();
  let url: URL;
  try {
    if (ABSOLUTE.test(base)) {
      url = new URL(base);
    } else {
      const page = pageOrigin(origin);
      if (page === null) return null;
      url = new URL(base === '' ? '/' : base, `${page}/`);
    }
  } catch {
    return null;
  }
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

/**
 * The live-socket URL: `ws(s)://<base host><base path>/ws?token=<key>` (http -> ws, https -> wss, the
 * token encoded by URLSearchParams); null without a key or without a resolvable base.
 */
export function deriveWsUrl(base: string | null, key: string | null | undefined): string | null {
  if (!key || base === null) return null;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return null;
  }
  const scheme = url.protocol === 'https:' || url.protocol === 'wss:' ? 'wss:' : 'ws:';
  const path = url.pathname.replace(/\/+$/, '');
  return `${scheme}//${url.host}${path}/ws?${new URLSearchParams({ token: key }).toString()}`;
}
