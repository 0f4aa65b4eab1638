/**
 * The knowledge graph in LMDB (reference runtime-nodes §8.7): append-only triples per account under
 * `[account, id]`, an index `[account, owner_id, observed_at, id]` for the newest-first scans of one
 * owner, a dedupe index on subject/predicate/object/scope/owner, and the triple's embedding (when an
 * embedding model is configured) under `[account, id]`.
 */
import { createHash } from 'node:crypto';
import type { Database } from 'lmdb';
import { prefixRange, type PluginStorage } from '@keel/plugin-sdk';
import { MAX_ID_CHARS } from './span-store.js';

export interface Triple {
  id: string;
  subject: string;
  predicate: string;
  object: string;
  scope: string;
  owner_id: string;
  observed_at: string;
  valid_from?: string;
  valid_until?: string;
  confidence?: number;
  provenance: Record<string, unknown>;
  attributes: Record<string, unknown>;
}

export interface StoredVector {
  model: string;
  vector: number[];
}


export class KgLimitError extends Error {}

export function tripleIdentity(t: Pick<Triple, 'subject' | 'predicate' | 'object' | 'scope' | 'owner_id'>): string {
  return createHash('sha256').update(JSON.stringify([t.subject, t.predicate, t.object, t.scope, t.owner_id])).digest('base64url');
}

export class KgStore {
  private readonly triples: Database<Triple, [string, string]>;
  private readonly byOwner: Database<null, [string, string, string, string]>;
  private readonly identities: Database<string, [string, string]>;
  private readonly vectors: Database<StoredVector, [string, string]>;
  private readonly counts: Database<number, [string, string]>;

  constructor(private readonly storage: PluginStorage, private readonly maxPerOwner: () => number) {
    this.triples = storage.openDB<Triple, [string, string]>('kg-triples');
    this.byOwner = storage.openDB<null, [string, string, string, string]>('kg-by-owner');
    this.identities = storage.openDB<string, [string, string]>('kg-identities');
    this.vectors = storage.openDB<StoredVector, [string, string]>('kg-vectors');
    this.counts = storage.openDB<number, [string, string]>('kg-counts');
  }

  /** Adds triples (skipping, when `dedupe`, those whose subject/predicate/object/scope/owner exist); answers the ids added and how many were skipped. */
  async add(account: string, triples: Triple[], dedupe: boolean, vectors: Map<string, StoredVector>): Promise<{ ids: string[]; skipped: number }> {
    return this.storage.transaction(() => {
      const ids: string[] = [];
      let skipped = 0;
      for (const t of triples) {
        const identity = tripleIdentity(t);
        if (dedupe && this.identities.get([account, identity]) !== undefined) {
          skipped++;
          continue;
        }
        const count = this.counts.get([account, t.owner_id]) ?? 0;
        if (count >= this.maxPerOwner()) throw new KgLimitError(`The knowledge graph of '${t.owner_id}' already holds ${count} triples (the memory plugin's kgMaxTriplesPerOwner); delete some through DELETE /api/gateway/memory/kg/{id} or raise the setting.`);
        this.triples.put([account, t.id], t);
        this.byOwner.put([account, t.owner_id, t.observed_at, t.id], null);
        this.identities.put([account, identity], t.id);
        this.counts.put([account, t.owner_id], count + 1);
        const vector = vectors.get(t.id);
        if (vector) this.vectors.put([account, t.id], vector);
        ids.push(t.id);
      }
      return { ids, skipped };
    });
  }

  /** The owner's triples, newest first, at most `max`. */
  newestOf(account: string, owner: string, max: number): Triple[] {
    const out: Triple[] = [];
    if (owner.length > MAX_ID_CHARS) return out;
    for (const key of this.byOwner.getKeys({ ...prefixRange([account, owner], { reverse: true }), limit: max })) {
      const t = this.triples.get([account, key[3]]);
      if (t) out.push(t);
    }
    return out;
  }

  get(account: string, id: string): Triple | undefined {
    return this.triples.get([account, id]);
  }

  vector(account: string, id: string): StoredVector | undefined {
    return this.vectors.get([account, id]);
  }

  async delete(account: string, id: string): Promise<boolean> {
    return this.storage.transaction(() => {
      const t = this.triples.get([account, id]);
      if (!t) return false;
      this.removeOne(account, t);
      return true;
    });
  }

  /** Deletes every triple of one owner (or of the whole account); answers how many. */
  async deleteAll(account: string, owner?: string): Promise<number> {
    return this.storage.transaction(() => {
      const prefix = owner === undefined ? [account] : [account, owner];
      let n = 0;
      // Collected first: the keys are removed while walking.
      for (const key of [...this.byOwner.getKeys(prefixRange(prefix))]) {
        const t = this.triples.get([account, key[3]]);
        if (t) this.removeOne(account, t);
        else this.byOwner.remove(key);
        n++;
      }
      return n;
    });
  }

  owners(account: string): Array<{ owner: string; triples: number }> {
    return [...this.counts.getRange(prefixRange([account]))].filter((e) => e.value > 0).map((e) => ({ owner: e.key[1], triples: e.value }));
  }

  private removeOne(account: string, t: Triple): void {
    this.triples.remove([account, t.id]);
    this.byOwner.remove([account, t.owner_id, t.observed_at, t.id]);
    const identity = tripleIdentity(t);
    if (this.identities.get([account, identity]) === t.id) this.identities.remove([account, identity]);
    this.vectors.remove([account, t.id]);
    this.counts.put([account, t.owner_id], Math.max(0, (this.counts.get([account, t.owner_id]) ?? 1) - 1));
  }
}
