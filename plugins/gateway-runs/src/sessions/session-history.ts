/**
 * Session history replay (seed 000 §2.2, §8; reference gateway-surfaces §5.1): a start with
 * `session_id` and `input_data.use_session_history: true` gets `vars.context.messages` seeded from the
 * session's completed turns, within the history window, and records what it did in
 * `vars._runtime.session_history` (shown as `session_history` on `GET /runs/{id}`). The run's inputs
 * are never changed. Nothing here blocks a start: a failure is recorded as a `#FALLBACK` note and the
 * run starts unseeded.
 */
import { formatBytes, JSON_TOO_DEEP, jsonSizeWithin, type Logger } from '@keel/plugin-sdk';
import { windowTurns } from './history-window.js';
import type { TurnCache } from './turn-cache.js';

export interface SessionHistorySettings {
  /** The window: the newest whole turns up to this many estimated tokens (seed §8: 50,000). */
  maxTokens: number;
  /**
   * The most turns one replay reads, newest first: turns that are not replayed (failed, no prompt or
   * answer) never fill the window, so without it a session of many such turns was read whole at
   * every start, on the event loop.
   */
  maxTurnsRead: number;
}

export const DEFAULT_SESSION_HISTORY: SessionHistorySettings = { maxTokens: 50_000, maxTurnsRead: 2_048 };

/** Inputs of older gateways that capped replay by count and size: ignored, and named in the record. */
export const RETIRED_INPUTS = ['session_history_max_messages', 'session_history_max_chars'] as const;

export interface SeedRequest {
  account: string;
  /** The session the start named; null when it named none. */
  sessionId: string | null;
  inputData: Record<string, unknown>;
  /** The new run's variables, changed in place. */
  vars: Record<string, unknown>;
  /** The window of this start in estimated tokens (a growing automation's `context.growing.max_tokens`); default: the setting. */
  maxTokens?: number;
}

export interface SessionHistoryDeps {
  /** The session's turns, newest first, read lazily (the window stops the read). */
  turns: Pick<TurnCache, 'newestFirst'>;
  log: Logger;
  settings: SessionHistorySettings;
  /** The run's own limits (`limits.maxVarsBytes`, `limits.maxVarsDepth`): a seeded run must still be able to take a step. */
  varsLimits: { maxVarsBytes: number; maxVarsDepth: number };
}

export const FALLBACK_PREFIX = '#FALLBACK: session history seed failed: ';

export class SessionHistory {
  constructor(private readonly deps: SessionHistoryDeps) {}

  /** Seeds the start's variables when it asks for it and records the outcome; never throws. */
  seed({ account, sessionId, inputData, vars, maxTokens }: SeedRequest): void {
    const asked = inputData.use_session_history;
    const ignored = retiredInputs(inputData);
    if ((asked === undefined || asked === false) && !ignored) return;
    const record = (fields: Record<string, unknown>) => {
      const runtime = isObject(vars._runtime) ? vars._runtime : (vars._runtime = {});
      runtime.session_history = { ...fields, ...(ignored ? { ignored_inputs: ignored } : {}) };
    };
    if (asked !== true) return record({ seeded: 0, skipped: 'use_session_history is not true' });
    if (!sessionId) return record({ seeded: 0, skipped: 'no session_id: a run without a session has no history to replay' });
    try {
      const context = vars.context;
      if (context !== undefined && context !== null && !isObject(context)) return record({ seeded: 0, skipped: 'client context is not an object' });
      const clientMessages = context?.messages;
      // A non-empty client transcript always wins; an empty list is no transcript.
      if (Array.isArray(clientMessages) && clientMessages.length > 0) return record({ seeded: 0, skipped: 'client context.messages present' });
      if (clientMessages !== undefined && clientMessages !== null && !Array.isArray(clientMessages)) return record({ seeded: 0, skipped: 'client context.messages is not a list' });
      const { messages, report } = windowTurns(this.deps.turns.newestFirst(account, sessionId), maxTokens ?? this.deps.settings.maxTokens, this.deps.settings.maxTurnsRead ?? DEFAULT_SESSION_HISTORY.maxTurnsRead);
      const seededContext = { ...(context ?? {}), messages };
      this.checkFits({ ...vars, context: seededContext });
      vars.context = seededContext;
      record({ seeded: messages.length, ...report });
    } catch (err) {
      const reason = (err as Error)?.message ?? String(err);
      this.deps.log.warn('session history replay failed; the run starts unseeded', { session_id: sessionId, error: reason });
      record({ seeded: 0, error: `${FALLBACK_PREFIX}${reason}` });
    }
  }

  /** Refuses a seeded history that would stop the run at its first step (its variables too large or too deep). */
  private checkFits(vars: Record<string, unknown>): void {
    const { maxVarsBytes, maxVarsDepth } = this.deps.varsLimits;
    const size = jsonSizeWithin(vars, maxVarsBytes, maxVarsDepth);
    if (size === JSON_TOO_DEEP) throw new Error(`the replayed history nests more than ${maxVarsDepth} levels deep (setting limits.maxVarsDepth of the gateway-runs plugin)`);
    if (size > maxVarsBytes) throw new Error(`the replayed history would make the run's variables larger than ${formatBytes(maxVarsBytes)}, the most one run may hold (setting limits.maxVarsBytes of the gateway-runs plugin)`);
  }
}

/** The retired inputs the start sent, as a `{name: value}` map; null when none. */
function retiredInputs(inputData: Record<string, unknown>): Record<string, unknown> | null {
  const found = RETIRED_INPUTS.filter((name) => Object.hasOwn(inputData, name));
  return found.length ? Object.fromEntries(found.map((name) => [name, inputData[name]])) : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
