/**
 * Span memory in LMDB (reference runtime-nodes §8.1): per account, the index records of each owner
 * (a run id, `session_memory_<sid>`, `global_memory`) under `[account, owner, created_at, span_id]`,
 * and each span's archived artifact under `[account, span_id]`. Every key starts with the account,
 * so no account's id ever resolves in another's plane.
 */
import type { Database } from 'lmdb';
import { prefixRange, type PluginStorage } from '@keel/plugin-sdk';

/** An index record as the origin keeps it in the owner run's `vars._runtime.memory_spans`. */
export interface SpanRecord {
  kind: string;
  artifact_id: string;
  created_at: string;
  from_timestamp: string | null;
  to_timestamp: string | null;
  message_count: number;
  [field: string]: unknown;
}

/** The archived span: a note `{note, sources, ...}` or a conversation `{messages, span, created_at}`, with its tags. */
export interface SpanArtifact {
  span_id: string;
  owner: string;
  /** `created_at` of the index record (its key). */
  indexed_at: string;
  content: Record<string, unknown>;
  tags: Record<string, string>;
}

/** The longest id (span, owner) the memory keys hold: the SDK's bound on ids that become keys. */
export const MAX_ID_CHARS = 256;
type IndexKey = [string, string, string, string];

export class SpanLimitError extends Error {}

export class SpanStore {
  private readonly index: Database<SpanRecord, IndexKey>;
  private readonly artifacts: Database<SpanArtifact, [string, string]>;
  /** `[account, owner]` → how many spans the owner holds (kept in the same transactions). */
  private readonly counts: Database<number, [string, string]>;

  constructor(private readonly storage: PluginStorage, private readonly maxPerOwner: () => number) {
    this.index = storage.openDB<SpanRecord, IndexKey>('span-index');
    this.artifacts = storage.openDB<SpanArtifact, [string, string]>('span-artifacts');
    this.counts = storage.openDB<number, [string, string]>('span-counts');
  }

  /**
   * Stores a span and its index record; resolves once durable. A span whose id the account already
   * holds is not written again: the stored record is answered (`created: false`), so an effect
   * performed again (a replay after a crash, a loop repeating the same payload) stores it once.
   */
  async add(account: string, owner: string, record: SpanRecord, content: Record<string, unknown>, tags: Record<string, string>): Promise<{ created: boolean; record: SpanRecord; content: Record<string, unknown> }> {
    return this.storage.transaction(() => {
      const existing = this.artifacts.get([account, record.artifact_id]);
      const stored = existing && this.index.get([account, existing.owner, existing.indexed_at, record.artifact_id]);
      if (existing && stored) return { created: false, record: stored, content: existing.content };
      const count = this.counts.get([account, owner]) ?? 0;
      if (count >= this.maxPerOwner()) {
        throw new SpanLimitError(`The memory of '${owner}' already holds ${count} spans (the memory plugin's maxSpansPerOwner); delete some through DELETE /api/gateway/memory/spans/{span_id} or raise the setting.`);
      }
      this.index.put([account, owner, record.created_at, record.artifact_id], record);
      this.artifacts.put([account, record.artifact_id], { span_id: record.artifact_id, owner, indexed_at: record.created_at, content, tags });
      this.counts.put([account, owner], count + 1);
      return { created: true, record, content };
    });
  }

  /** The owner's index records, oldest first (the order of the origin's `memory_spans` list). */
  spansOf(account: string, owner: string): SpanRecord[] {
    if (owner.length > MAX_ID_CHARS) return [];
    return [...this.index.getRange(prefixRange([account, owner]))].map((e) => e.value);
  }

  artifact(account: string, spanId: string): SpanArtifact | undefined {
    // An id longer than any span id is no span (and would not fit an LMDB key).
    if (spanId.length > MAX_ID_CHARS) return undefined;
    return this.artifacts.get([account, spanId]);
  }

  /** The index record of a span, with its owner. */
  record(account: string, spanId: string): { owner: string; record: SpanRecord } | undefined {
    const artifact = this.artifact(account, spanId);
    if (!artifact) return undefined;
    const record = this.index.get([account, artifact.owner, artifact.indexed_at, spanId]);
    return record ? { owner: artifact.owner, record } : undefined;
  }

  /** Replaces a span's index record and artifact tags (tagging). */
  async update(account: string, spanId: string, record: SpanRecord, tags: Record<string, string>): Promise<void> {
    await this.storage.transaction(() => {
      const artifact = this.artifacts.get([account, spanId]);
      if (!artifact) return;
      this.index.put([account, artifact.owner, artifact.indexed_at, spanId], record);
      this.artifacts.put([account, spanId], { ...artifact, tags });
    });
  }

  /** Deletes one span; false when the account holds none with this id. */
  async delete(account: string, spanId: string): Promise<boolean> {
    return this.storage.transaction(() => {
      const artifact = this.artifact(account, spanId);
      if (!artifact) return false;
      this.index.remove([account, artifact.owner, artifact.indexed_at, spanId]);
      this.artifacts.remove([account, spanId]);
      this.counts.put([account, artifact.owner], Math.max(0, (this.counts.get([account, artifact.owner]) ?? 1) - 1));
      return true;
    });
  }

  /** Deletes every span of one owner (or, with no owner, of the whole account); answers how many. */
  async deleteAll(account: string, owner?: string): Promise<number> {
    return this.storage.transaction(() => {
      const prefix = owner === undefined ? [account] : [account, owner];
      let n = 0;
      // Collected first: the keys are removed while walking.
      for (const key of [...this.index.getKeys(prefixRange(prefix))]) {
        this.index.remove(key);
        this.artifacts.remove([account, key[3]]);
        n++;
      }
      for (const key of [...this.counts.getKeys(prefixRange(prefix))]) this.counts.remove(key);
      return n;
    });
  }

  /** The account's owners with how many spans each holds. */
  owners(account: string): Array<{ owner: string; spans: number }> {
    return [...this.counts.getRange(prefixRange([account]))].filter((e) => e.value > 0).map((e) => ({ owner: e.key[1], spans: e.value }));
  }
}
