/**
 * Tokens each account used through this relay in its current usage window (reference §3.10): the
 * tally is anchored to the longest window's reset (a new anchor starts it over, so a 5 h window
 * never wipes a weekly count), persisted atomically so a restart keeps it, and never extrapolated
 * into a capacity estimate (quotas are weighted per model).
 *
 * Written behind: at most once every `WRITE_DELAY_MS` while calls flow, asynchronously (a slow disk
 * never stalls serving), and synchronously at stop. A crash loses at most that last second of
 * counts: the tally is the relay's own view for the status page, never what decides capacity (the
 * upstream's usage report does), so nothing a client was answered depends on it.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { windowLabel } from './windows.js';

export interface TokenCounts {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
}

interface AccountTally {
  resetAt: number | null;
  windowSeconds: number | null;
  models: Record<string, TokenCounts>;
}

/** Two reports of one window may round its reset differently: closer than this is the same anchor. */
const ANCHOR_TOLERANCE_SECONDS = 120;
const WRITE_DELAY_MS = 1000;

export class WindowTally {
  private readonly tallies = new Map<string, AccountTally>();
  private writeTimer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly file: string, private readonly onError: (err: unknown) => void) {
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, AccountTally>;
      for (const [slug, tally] of Object.entries(saved)) {
        if (tally && typeof tally === 'object' && tally.models && typeof tally.models === 'object') this.tallies.set(slug, tally);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') onError(err);
    }
  }

  /** Moves an account's anchor to the longest window of a fresh report (a new window clears the tally). */
  anchor(slug: string, resetAt: number | null, windowSeconds: number | null): void {
    const tally = this.tallies.get(slug);
    if (!tally) {
      this.tallies.set(slug, { resetAt, windowSeconds, models: {} });
      return;
    }
    const same = tally.resetAt !== null && resetAt !== null && Math.abs(tally.resetAt - resetAt) <= ANCHOR_TOLERANCE_SECONDS && tally.windowSeconds === windowSeconds;
    if (same) return;
    if (tally.resetAt === null && Object.keys(tally.models).length === 0) {
      Object.assign(tally, { resetAt, windowSeconds });
      return;
    }
    this.tallies.set(slug, { resetAt, windowSeconds, models: {} });
    this.scheduleWrite();
  }

  /** Adds one call's usage (chat `prompt_tokens`/`completion_tokens` or Responses `input_tokens`/`output_tokens`). */
  add(slug: string, model: string, usage: unknown): void {
    const counts = countsOf(usage);
    if (!counts) return;
    let tally = this.tallies.get(slug);
    if (!tally) {
      tally = { resetAt: null, windowSeconds: null, models: {} };
      this.tallies.set(slug, tally);
    }
    const entry = tally.models[model] ??= { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 };
    entry.input_tokens += counts.input_tokens;
    entry.output_tokens += counts.output_tokens;
    entry.cached_input_tokens += counts.cached_input_tokens;
    this.scheduleWrite();
  }

  /** The `relay_window_tokens` object of an account, or null when nothing was tallied. */
  statusOf(slug: string): Record<string, unknown> | null {
    const tally = this.tallies.get(slug);
    if (!tally || Object.keys(tally.models).length === 0) return null;
    const totals: TokenCounts = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 };
    const models = Object.entries(tally.models).map(([model, counts]) => {
      totals.input_tokens += counts.input_tokens;
      totals.output_tokens += counts.output_tokens;
      totals.cached_input_tokens += counts.cached_input_tokens;
      return { model, ...counts };
    });
    return {
      object: 'relay_window_tokens',
      scope: 'current_usage_window_via_this_relay',
      window_reset_at: tally.resetAt,
      window_seconds: tally.windowSeconds,
      window_label: windowLabel(tally.windowSeconds),
      models,
      totals,
    };
  }

  /** Writes now what is pending, synchronously (at stop); later changes are written at once too. */
  flush(): void {
    this.stopped = true;
    if (this.writeTimer) clearTimeout(this.writeTimer);
    this.writeTimer = null;
    this.writeNow();
  }

  private writeNow(): void {
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, this.serialised(), { mode: 0o600 });
      renameSync(tmp, this.file);
    } catch (err) {
      this.onError(err);
    }
  }

  private serialised(): string {
    return JSON.stringify(Object.fromEntries(this.tallies));
  }

  /** One background write at a time (its own temp file); changes made meanwhile wait for the next. */
  private async writeBehind(): Promise<void> {
    const tmp = `${this.file}.${process.pid}.behind.tmp`;
    try {
      await mkdir(dirname(this.file), { recursive: true });
      await writeFile(tmp, this.serialised(), { mode: 0o600 });
      await rename(tmp, this.file);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      this.onError(err);
    }
    // A stop while this write was on its way: the synchronous write may have landed first, so the
    // latest counts are written again over this older snapshot.
    if (this.stopped) this.writeNow();
  }

  private scheduleWrite(): void {
    if (this.stopped) {
      this.writeNow();
      return;
    }
    if (this.writeTimer) return;
    this.writeTimer = setTimeout(() => {
      this.writeTimer = null;
      if (this.writing) {
        // Still writing the previous snapshot: this one follows it.
        void this.writing.then(() => this.scheduleWrite());
        return;
      }
      this.writing = this.writeBehind().finally(() => {
        this.writing = null;
      });
    }, WRITE_DELAY_MS);
    this.writeTimer.unref();
  }
}

function countsOf(usage: unknown): TokenCounts | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const u = usage as Record<string, unknown>;
  const int = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.trunc(value) : 0);
  const details = (u.prompt_tokens_details ?? u.input_tokens_details) as Record<string, unknown> | undefined;
  const counts = {
    input_tokens: int(u.prompt_tokens ?? u.input_tokens),
    output_tokens: int(u.completion_tokens ?? u.output_tokens),
    cached_input_tokens: int(details?.cached_tokens),
  };
  return counts.input_tokens + counts.output_tokens + counts.cached_input_tokens > 0 ? counts : null;
}
