/**
 * Waiting for a condition with a deadline, never a fixed sleep: tests must pass on a heavily loaded
 * machine, so the deadline is generous and the failure says what was awaited and what was seen last.
 */

export interface UntilOptions<T> {
  /** What is awaited, as a phrase ("run r1 to complete"): the timeout error names it. */
  what: string;
  /** Milliseconds before giving up (default 30 s). */
  deadline?: number;
  /** When the value is good enough (default: truthy). */
  ok?: (value: T) => boolean;
  /** Milliseconds between probes (default 20). */
  every?: number;
}

const DEFAULT_DEADLINE_MS = 30_000;

/**
 * Calls `condition` until its value is good (`ok`, default truthy) and answers that value; throws
 * after `deadline` ms naming `what` and the last value. The older form `until(probe, ok, ms)` is
 * the same with `what` left generic.
 */
export async function until<T>(condition: () => T | Promise<T>, options: UntilOptions<T>): Promise<T>;
export async function until<T>(condition: () => T | Promise<T>, ok: (value: T) => boolean, deadline?: number): Promise<T>;
export async function until<T>(condition: () => T | Promise<T>, second: UntilOptions<T> | ((value: T) => boolean), deadline?: number): Promise<T> {
  const options: UntilOptions<T> = typeof second === 'function' ? { ok: second, deadline, what: 'the condition' } : second;
  const ok = options.ok ?? ((value: T) => Boolean(value));
  const ms = options.deadline ?? DEFAULT_DEADLINE_MS;
  const giveUpAt = Date.now() + ms;
  for (;;) {
    const value = await condition();
    if (ok(value)) return value;
    if (Date.now() > giveUpAt) throw new Error(`timed out after ${ms / 1000} s waiting for ${options.what}; last value: ${describe(value)}`);
    await new Promise((resolve) => setTimeout(resolve, options.every ?? 20));
  }
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}
