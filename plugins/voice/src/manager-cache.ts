/**
 * Voice managers cached per configuration (reference B.13 "Manager cache"): a request that asks for
 * another provider, model or language gets the manager of the settings it implies, built once and
 * reused. The cache holds at most `max` managers; the least recently used one that no call is
 * using is closed to make room (engines hold worker threads), and one in use is closed when its
 * last call ends.
 */
import type { OwnerSettings } from './owner-settings.js';
import { settingsKey } from './owner-settings.js';

export interface Closable {
  close(): Promise<void>;
}

interface Entry<M> {
  manager: M;
  users: number;
  evicted: boolean;
}

export class ManagerCache<M extends Closable> {
  /** Insertion order is recency order: a hit moves its entry to the end. */
  private readonly entries = new Map<string, Entry<M>>();
  private closed = false;

  constructor(
    private readonly build: (settings: OwnerSettings) => M,
    private readonly max: () => number,
    private readonly onCloseError: (err: unknown) => void = () => undefined,
  ) {}

  /** Runs `fn` with the manager of `settings`, which stays open until `fn` settles. */
  async use<T>(settings: OwnerSettings, fn: (manager: M) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('The voice plugin is stopping.');
    const key = settingsKey(settings);
    let entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
    } else {
      entry = { manager: this.build(settings), users: 0, evicted: false };
    }
    this.entries.set(key, entry);
    this.trim();
    entry.users += 1;
    try {
      return await fn(entry.manager);
    } finally {
      entry.users -= 1;
      if (entry.evicted && entry.users === 0) this.close(entry);
    }
  }

  /** The managers open now (residency listings read them). */
  open(): M[] {
    return [...this.entries.values()].filter((e) => !e.evicted).map((e) => e.manager);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Closes every manager (the plugin's stop); later calls are refused. */
  async closeAll(): Promise<void> {
    this.closed = true;
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.allSettled(all.map((e) => e.manager.close()));
  }

  private trim(): void {
    const max = Math.max(1, this.max());
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= max) break;
      this.entries.delete(key);
      entry.evicted = true;
      if (entry.users === 0) this.close(entry);
    }
  }

  private close(entry: Entry<M>): void {
    entry.manager.close().catch(this.onCloseError);
  }
}
