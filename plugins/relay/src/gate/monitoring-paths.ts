/**
 * Which relay paths are monitoring (reference §1.1): polled by dashboards, so they are not counted
 * in `requests_total` and write no inbound record. Paths are relative to the relay's mount prefix.
 */
export const MONITORING_PATHS: readonly string[] = ['/relay/status', '/subscription/status', '/account/rate_limits', '/relay/accounts/refresh'];

/** The request's path relative to `prefix` (`/v1/relay/status` → `/relay/status`), without a trailing slash; null when outside it. */
export function relayPathOf(url: string | undefined, prefix: string): string | null {
  let pathname: string;
  try {
    pathname = new URL(url ?? '/', 'http://relay.invalid').pathname;
  } catch {
    return null;
  }
  const base = prefix.replace(/\/+$/, '');
  if (pathname !== base && !pathname.startsWith(`${base}/`)) return null;
  return pathname.slice(base.length).replace(/\/+$/, '') || '/';
}

export function isMonitoringPath(relativePath: string | null): boolean {
  return relativePath !== null && MONITORING_PATHS.includes(relativePath);
}

/**
 * `GET /v1/relay/status?activity_only=true` (seed §C.4): the poller's pulse, checked for the token
 * only (no rate-limit token, no slot, not counted).
 */
export function isActivityOnly(method: string | undefined, url: string | undefined, prefix: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (relayPathOf(url, prefix) !== '/relay/status') return false;
  return new URL(url ?? '/', 'http://relay.invalid').searchParams.get('activity_only') === 'true';
}
