/**
 * The numbers that bound remote discovery (seed §8 "Speech discovery", reference B.9): every remote
 * probe of one listing shares one wall-clock budget (default 5 s), each request's timeout is the
 * smaller of that budget and the remote timeout, and answers are kept for a TTL that is never below
 * 300 s (a lower, non-numeric or non-finite value gives 300).
 */

export type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_DISCOVERY_BUDGET_S = 5;
export const DEFAULT_REMOTE_TIMEOUT_S = 60;
export const MIN_DISCOVERY_TTL_S = 300;

export interface DiscoverySettings {
  /** Shared wall-clock budget of all remote probes of one listing, in seconds. */
  budgetS: number;
  /** The remote engines' own request timeout, in seconds. */
  remoteTimeoutS: number;
  /** How long a remote answer is reused, in seconds (≥ 300). */
  ttlS: number;
}

/** `VOICE_DISCOVERY_TIMEOUT_S`: a positive finite number, else 5 (a value ≤ 0 is ignored). */
export function discoveryBudgetS(raw: string | number | undefined): number {
  const value = typeof raw === 'number' ? raw : raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_DISCOVERY_BUDGET_S;
}

/** `VOICE_REMOTE_TIMEOUT_S`: a positive finite number, else 60 (reference B.1: ≤ 0 falls back to 60). */
export function remoteTimeoutS(raw: string | number | undefined): number {
  const value = typeof raw === 'number' ? raw : raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_REMOTE_TIMEOUT_S;
}

/** `VOICE_REMOTE_DISCOVERY_TTL_S`: values below 300, non-numeric and non-finite values all give 300. */
export function discoveryTtlS(raw: string | number | undefined): number {
  const value = typeof raw === 'number' ? raw : raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  return Number.isFinite(value) && value >= MIN_DISCOVERY_TTL_S ? value : MIN_DISCOVERY_TTL_S;
}

/**
 * Reads the three settings; an explicit `remoteTimeoutS` (the manager's `remote_timeout_s`) wins
 * over the environment.
 */
export function discoverySettings(env: Env, explicitRemoteTimeoutS?: number): DiscoverySettings {
  return {
    budgetS: discoveryBudgetS(env.VOICE_DISCOVERY_TIMEOUT_S),
    remoteTimeoutS: remoteTimeoutS(explicitRemoteTimeoutS ?? env.VOICE_REMOTE_TIMEOUT_S),
    ttlS: discoveryTtlS(env.VOICE_REMOTE_DISCOVERY_TTL_S),
  };
}

/**
 * One listing's shared budget: every probe started under it gets a timeout of
 * min(time left, remote timeout), so probes run concurrently and the listing never waits longer
 * than the budget in total, however many remotes are slow.
 */
export class ProbeBudget {
  private readonly deadline: number;

  constructor(
    private readonly settings: DiscoverySettings,
    private readonly clock: () => number = Date.now,
  ) {
    this.deadline = clock() + settings.budgetS * 1000;
  }

  /** Milliseconds left of the shared budget (0 when spent). */
  remainingMs(): number {
    return Math.max(0, this.deadline - this.clock());
  }

  /** The timeout a request started now gets: min(time left, remote timeout), in ms. */
  requestTimeoutMs(): number {
    return Math.min(this.remainingMs(), this.settings.remoteTimeoutS * 1000);
  }
}

/** Settings may carry their own environment (the manager's `EngineSettings.env`). */
export function envOf(settings: unknown): Env | undefined {
  const env = (settings as { env?: unknown } | undefined)?.env;
  return env && typeof env === 'object' ? (env as Env) : undefined;
}

/** How long a local engine's own answer (availability, profiles, models) may take in a listing. */
export const DEFAULT_LOCAL_ANSWER_TIMEOUT_MS = 30_000;

/**
 * `promise`, or a rejection naming `what` after `ms`: a local engine that hangs must not hang the
 * listing (the answer it gives later is dropped).
 */
export async function withinMs<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${(ms / 1000).toFixed(1)} s`)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
