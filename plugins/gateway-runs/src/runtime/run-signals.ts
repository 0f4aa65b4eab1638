/**
 * The cancel signals of runs' in-flight work (an LLM call stops at the next token, a tool step at
 * its next call), and why each run was cancelled until the tick that owns it notices the abort.
 */
import type { RunSignalSource } from './collaborators.js';

export class RunSignals implements RunSignalSource {
  private readonly controllers = new Map<string, AbortController>();
  private readonly reasons = new Map<string, string>();

  /** The run's signal; aborted once the run is cancelled. */
  signalOf(runId: string): AbortSignal {
    let c = this.controllers.get(runId);
    if (!c || c.signal.aborted) {
      c = c?.signal.aborted ? c : new AbortController();
      this.controllers.set(runId, c);
    }
    return c.signal;
  }

  /** Aborts whatever the run is doing in flight. */
  abort(runId: string, reason?: string | null): void {
    if (reason) this.reasons.set(runId, reason);
    this.controllers.get(runId)?.abort();
  }

  /** Why the run was cancelled, if a reason was given. */
  reasonOf(runId: string): string | undefined {
    return this.reasons.get(runId);
  }

  /** The run ended: nothing of it is kept. */
  forget(runId: string): void {
    this.controllers.delete(runId);
    this.reasons.delete(runId);
  }
}
