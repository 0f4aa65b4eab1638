/** Before loading a server, one request proves it answers the health shape (else the figures mean nothing). */
export async function checkHealthShape(url: string): Promise<void> {
  const res = await fetch(url);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${text}`);
  const body = JSON.parse(text) as Record<string, unknown>;
  const watchdog = body.watchdog as Record<string, unknown> | undefined;
  const ok = body.status === 'ok'
    && typeof watchdog?.enabled === 'boolean'
    && typeof watchdog.limit_s === 'number'
    && (typeof watchdog.last_tick_age_s === 'number' || watchdog.last_tick_age_s === null);
  if (!ok) throw new Error(`${url} answered a body not of the health shape: ${text}`);
}
