/**
 * The owner zone of reference §3.5. Keel keeps account preferences in the kernel
 * (`/accounts/{me}/preferences`) with no way for a plugin to read them, so the owner zone is the
 * gateway host's: `TZ` when it names an IANA zone, else the zone the runtime resolves (Intl, which
 * reads the system's local-time link), else UTC.
 */
import { canonicalZone } from './wall-time.js';

export function hostZone(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.TZ ? canonicalZone(env.TZ.replace(/^:/, '')) : null;
  if (fromEnv) return fromEnv;
  let resolved: string | undefined;
  try {
    resolved = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    resolved = undefined;
  }
  return (resolved && canonicalZone(resolved)) || 'UTC';
}
