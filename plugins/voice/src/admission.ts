/**
 * Bounds on the work voice calls start: so many syntheses and transcriptions at once in this
 * process (503 beyond) and so many calls at once per account (429 beyond), both with
 * `Retry-After`, refused at once rather than queued (a queue would let one client hold memory and
 * sockets without limit); and a deadline for each call (504), which aborts the engine's work.
 */
import { HttpError, serviceUnavailable, tooManyRequests } from '@keel/plugin-sdk';
import type { VoiceLimits } from './config.js';

export type WorkKind = 'synthesis' | 'transcription';

export interface AdmissionStatus {
  running: Record<WorkKind, number>;
  limits: Record<WorkKind, number> & { per_account: number };
}

export class VoiceAdmission {
  private readonly running: Record<WorkKind, number> = { synthesis: 0, transcription: 0 };
  private readonly perAccount = new Map<string, number>();

  constructor(private readonly limits: () => VoiceLimits) {}

  /** Takes a slot of `kind` for `account`, or throws the 429/503 that says when to come back. */
  enter(account: string, kind: WorkKind): () => void {
    const limits = this.limits();
    const retry = { 'retry-after': String(limits.retryAfterSeconds) };
    const mine = this.perAccount.get(account) ?? 0;
    if (mine >= limits.maxConcurrentPerAccount) {
      throw tooManyRequests(`This account already has ${mine} voice requests running (setting limits.maxConcurrentPerAccount); wait for one to finish and retry.`, { code: 'rate_limit_exceeded', headers: retry });
    }
    const cap = kind === 'synthesis' ? limits.maxConcurrentSyntheses : limits.maxConcurrentTranscriptions;
    if (this.running[kind] >= cap) {
      const setting = kind === 'synthesis' ? 'limits.maxConcurrentSyntheses' : 'limits.maxConcurrentTranscriptions';
      throw serviceUnavailable(`The server is busy with ${this.running[kind]} ${kind === 'synthesis' ? 'syntheses' : 'transcriptions'} (setting ${setting}); retry shortly.`, { code: 'server_busy', headers: retry });
    }
    this.running[kind] += 1;
    this.perAccount.set(account, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running[kind] -= 1;
      const left = (this.perAccount.get(account) ?? 1) - 1;
      if (left > 0) this.perAccount.set(account, left);
      else this.perAccount.delete(account);
    };
  }

  /**
   * Runs `work` inside a slot, with a signal that aborts when the caller's does or the deadline
   * passes; a call past its deadline is answered 504 even if the engine ignores the signal.
   */
  async run<T>(account: string, kind: WorkKind, caller: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const release = this.enter(account, kind);
    const { requestTimeoutMs } = this.limits();
    const deadline = new AbortController();
    const timedOut = new Promise<never>((_, reject) => {
      const timer = setTimeout(() => {
        const err = new HttpError(504, `The voice request took longer than ${requestTimeoutMs} ms and was stopped (setting limits.requestTimeoutMs).`, { code: 'timeout' });
        deadline.abort(err);
        reject(err);
      }, requestTimeoutMs);
      deadline.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    });
    timedOut.catch(() => undefined);
    const signal = caller ? AbortSignal.any([caller, deadline.signal]) : deadline.signal;
    // The slot is held until the work really settles: an engine that ignores the abort still counts.
    let task: Promise<T>;
    try {
      task = work(signal);
    } catch (err) {
      task = Promise.reject(err);
    }
    void task.then(release, release).finally(() => {
      if (!deadline.signal.aborted) deadline.abort();
    });
    return Promise.race([task, timedOut]);
  }

  status(): AdmissionStatus {
    const l = this.limits();
    return { running: { ...this.running }, limits: { synthesis: l.maxConcurrentSyntheses, transcription: l.maxConcurrentTranscriptions, per_account: l.maxConcurrentPerAccount } };
  }
}
