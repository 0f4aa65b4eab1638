/**
 * The owner zone of reference §3.5: the account preference `time_zone` (`/accounts/{me}/preferences`,
 * read through `core.auth.preferencesOf`) when it names an IANA zone, else the gateway host's: `TZ`
 * when it names an IANA zone, else the zone the runtime resolves (Intl, which reads the system's
 * local-time link), else UTC.
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

/** The owner's zone: a valid `time_zone` preference of the account, else the host's zone. */
export function ownerZoneOf(preferences: Record<string, unknown> | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const preferred = preferences?.time_zone;
  return (typeof preferred === 'string' && canonicalZone(preferred)) || hostZone(env);
}
