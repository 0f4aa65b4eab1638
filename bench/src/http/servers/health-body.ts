/**
 * The `/api/health` body of the baseline servers: the shape of the kernel's route with only the core
 * plugin loaded (plugins add fields of their own, e.g. gateway-runs' `runner`) and the same
 * per-request work: the watchdog age is computed from a stamp a timer refreshes every 200 ms, so the
 * baselines are not flattered by answering a constant string.
 */
export interface HealthBody {
  status: 'ok';
  watchdog: { enabled: boolean; limit_s: number; last_tick_age_s: number | null };
}

const TICK_MS = 200;
const LIMIT_S = 10;

/** Starts the stamp timer and returns the body builder. */
export function healthBodySource(): () => HealthBody {
  let lastTick = Date.now();
  setInterval(() => {
    lastTick = Date.now();
  }, TICK_MS).unref();
  return () => ({
    status: 'ok',
    watchdog: { enabled: true, limit_s: LIMIT_S, last_tick_age_s: Math.max(0, Date.now() - lastTick) / 1000 },
  });
}
