/**
 * Keeps the vectors of the chosen model current, off the request path (reference §8.6 "The
 * embedder thread"): committed messages and vfs writes (from the live bus) queue their document;
 * one loop embeds the queue in batches of `batchSize` texts and stores the vectors. The queue holds
 * at most `queueCap` documents: past it, arrivals are dropped and a reconcile runs once the queue
 * drains, so nothing is lost, only delayed.
 *
 * A reconcile walks every live document and queues those whose vectors for the model are missing
 * or stale (hash differs), removes vectors of documents that are gone, and drops every other
 * model's vectors. It runs at start, when the setting changes, on `POST /admin/search/rebuild`, and
 * after an overflow.
 *
 * A failing embed call backs off (1 s doubling to 300 s, the reference's breaker) and retries the
 * same batch; the error is reported in the setting's status until a call succeeds.
 */
import type { Logger } from '@keel/plugin-sdk';
import type { LiveBus } from '../../live/live-bus.js';
import type { StoredMessage } from '../../records.js';
import type { Embedder } from './embedder.js';
import type { EmbeddingSetting } from './embedding-setting.js';
import { docId, type DocKey, type SemanticCorpus, type SemanticDoc } from './semantic-docs.js';
import type { VectorStore } from './vector-store.js';

export interface SemanticLimits {
  /** Most documents waiting to be embedded; past it arrivals wait for the next reconcile. */
  queueCap: number;
  /** Most texts (chunks) sent to the model in one embedding call. */
  batchSize: number;
  /** Most chunks one long document is cut into. */
  maxChunksPerDoc: number;
  /** Most documents the semantic side of one search ranks. */
  topDocs: number;
}

const BACKOFF_START_MS = 1000;
const BACKOFF_MAX_MS = 300_000;

export class SemanticIndexer {
  private readonly queue = new Map<string, DocKey>();
  private overflowed = false;
  private reconcileWanted = false;
  private running = false;
  private stopped = false;
  private backoffMs = 0;
  private retryAt = 0;
  private wake: (() => void) | null = null;
  private readonly abort = new AbortController();
  /** The model the last finished reconcile made current (a resolved id), and whether a reconcile is under way. */
  reconciledFor: string | null = null;
  reconciling = false;
  lastError: string | null = null;
  embeddedSession = 0;

  constructor(
    private readonly embedder: Embedder,
    private readonly setting: EmbeddingSetting,
    private readonly corpus: SemanticCorpus,
    private readonly vectors: VectorStore,
    private readonly limits: SemanticLimits,
    private readonly log: Logger,
  ) {}

  /** Follows the live bus and reconciles once; called when the hub starts. */
  start(live: LiveBus): void {
    live.subscribe((m) => this.onCommitted(m));
    this.requestReconcile();
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
    this.wake?.();
  }

  /** A reconcile for `model` finished and none is due (an overflow leaves documents it has not queued yet). */
  settledFor(model: string): boolean {
    return this.reconciledFor === model && !this.reconciling && !this.overflowed && !this.reconcileWanted;
  }

  queued(): number {
    return this.queue.size;
  }

  /** Backoff state, as the reference reports its breaker. */
  breaker(): { state: 'closed' } | { state: 'open'; backoff_seconds: number; retry_in: number } {
    if (!this.lastError) return { state: 'closed' };
    return { state: 'open', backoff_seconds: this.backoffMs / 1000, retry_in: Math.max(0, Math.round((this.retryAt - Date.now()) / 100) / 10) };
  }

  /** Forgets a failure (a probe just succeeded), so the next batch goes out without waiting out the backoff. */
  clearError(): void {
    this.lastError = null;
    this.backoffMs = 0;
    this.retryAt = 0;
  }

  /** Asks the loop for a full reconcile (setting change, rebuild); cheap to call repeatedly. */
  requestReconcile(): void {
    this.reconcileWanted = true;
    this.kick();
  }

  private onCommitted(m: StoredMessage): void {
    if (m.kind === 'message') this.enqueue({ kind: 'message', channel: m.channel, ref: m.id });
    else if (m.kind === 'fs' && typeof m.data?.path === 'string') this.enqueue({ kind: 'file', channel: m.channel, ref: m.data.path });
  }

  private enqueue(key: DocKey): void {
    if (this.setting.get().model === null) return;
    const id = docId(key);
    if (this.queue.has(id)) return;
    if (this.queue.size >= this.limits.queueCap) {
      this.overflowed = true;
      return;
    }
    this.queue.set(id, key);
    this.kick();
  }

  private kick(): void {
    if (this.wake) this.wake();
    if (this.running || this.stopped) return;
    this.running = true;
    void this.loop().finally(() => {
      this.running = false;
      // Work queued between the loop's last look and now would otherwise wait for the next arrival.
      if (this.queue.size || this.reconcileWanted) this.kick();
    });
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const model = this.setting.get().model;
      if (model === null) {
        this.queue.clear();
        this.reconcileWanted = this.overflowed = false;
        return;
      }
      if (Date.now() < this.retryAt) {
        await this.sleep(this.retryAt - Date.now());
        continue;
      }
      try {
        const target = await this.embedder.resolve(model);
        if (this.reconcileWanted || (this.overflowed && this.queue.size === 0)) {
          this.reconcileWanted = this.overflowed = false;
          await this.reconcile(target);
          continue;
        }
        if (this.queue.size === 0) return;
        await this.embedBatch(target);
        this.lastError = null;
        this.backoffMs = 0;
      } catch (err) {
        if (this.stopped) return;
        this.lastError = err instanceof Error ? err.message : String(err);
        this.backoffMs = Math.min(BACKOFF_MAX_MS, this.backoffMs ? this.backoffMs * 2 : BACKOFF_START_MS);
        this.retryAt = Date.now() + this.backoffMs;
        this.log.warn('semantic index: embedding failed; retrying after a backoff', { error: this.lastError, backoff_ms: this.backoffMs });
      }
      // Let requests run between batches.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** Embeds the oldest queued documents, up to `batchSize` texts (a longer document goes alone). */
  private async embedBatch(model: string): Promise<void> {
    const docs: SemanticDoc[] = [];
    const gone: DocKey[] = [];
    const taken: string[] = [];
    let texts = 0;
    for (const [id, key] of this.queue) {
      const doc = this.corpus.read(key);
      if (!doc) gone.push(key);
      else if (this.vectors.hashOf(model, key) !== doc.hash) {
        if (texts > 0 && texts + doc.chunks.length > this.limits.batchSize) break;
        docs.push(doc);
        texts += doc.chunks.length;
      }
      taken.push(id);
      if (texts >= this.limits.batchSize) break;
    }
    if (gone.length) await this.vectors.remove(gone, [...this.vectors.models().keys()]);
    if (docs.length) {
      const out = await this.embedder.embed(model, docs.flatMap((d) => d.chunks), this.abort.signal);
      let at = 0;
      const items = docs.map((d) => {
        const vectors = out.vectors.slice(at, at + d.chunks.length);
        at += d.chunks.length;
        return { key: { kind: d.kind, channel: d.channel, ref: d.ref }, hash: d.hash, vectors };
      });
      await this.vectors.put(out.model, items);
      this.embeddedSession += docs.length;
    }
    // Only after the batch is stored: a failed call leaves its documents queued for the retry.
    for (const id of taken) this.queue.delete(id);
  }

  private async reconcile(model: string): Promise<void> {
    this.reconciling = true;
    try {
      for (const other of this.vectors.models().keys()) if (other !== model) await this.vectors.drop(other);
      let seen = 0;
      for (const key of this.corpus.all()) {
        const doc = this.corpus.read(key);
        if (doc && this.vectors.hashOf(model, key) !== doc.hash) {
          if (this.queue.size >= this.limits.queueCap) {
            this.overflowed = true;
            break;
          }
          this.queue.set(docId(key), key);
        }
        if (++seen % 1000 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      const orphans = this.vectors.keys(model).filter((key) => !this.corpus.read(key));
      if (orphans.length) await this.vectors.remove(orphans, [model]);
      this.reconciledFor = model;
    } finally {
      this.reconciling = false;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }
}
