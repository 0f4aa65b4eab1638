/**
 * The vectors semantic search scores against, in LMDB (`hub:vectors`): one record per document and
 * model, `[model, kind, channel, ref]` → `{hash, dim, chunks, vec}` with the chunks' float32
 * vectors, normalised, end to end. Vectors are derived data: a rebuild re-derives them.
 *
 * Queries read an in-memory copy of one model's vectors, loaded on first use and kept current by
 * every write here, so a search never reads LMDB per document.
 */
import type { Database } from 'lmdb';
import type { HubDb } from '../../store/hub-db.js';
import { docId, type DocKey, type SemanticKind } from './semantic-docs.js';
import { prefixRange } from '@keel/plugin-sdk';

interface StoredVectors {
  hash: string;
  dim: number;
  chunks: number;
  vec: Uint8Array;
}

export interface DocVectors {
  key: DocKey;
  hash: string;
  dim: number;
  /** `chunks × dim` normalised components. */
  vec: Float32Array;
}

export interface ScoredDoc {
  key: DocKey;
  hash: string;
  score: number;
}

type VectorKey = [string, SemanticKind, string, string];

export class VectorStore {
  private readonly db: Database<StoredVectors, VectorKey>;
  /** model → docId → vectors; only the models a query has asked for. */
  private readonly loaded = new Map<string, Map<string, DocVectors>>();
  /** model → documents with vectors, counted once from LMDB, then kept by every write here (searches ask for it). */
  private readonly counts = new Map<string, number>();

  constructor(hubDb: HubDb) {
    this.db = hubDb.openDB<StoredVectors, VectorKey>('vectors');
  }

  /** The stored hash of a document's vectors for `model`, or undefined. */
  hashOf(model: string, key: DocKey): string | undefined {
    return this.db.get([model, key.kind, key.channel, key.ref])?.hash;
  }

  async put(model: string, items: Array<{ key: DocKey; hash: string; vectors: number[][] }>): Promise<void> {
    const ready = items.map((item) => ({ ...item, vec: normalised(item.vectors) }));
    const count = this.count(model);
    let added = 0;
    await this.db.transaction(() => {
      for (const { key, hash, vectors, vec } of ready) {
        if (!this.db.doesExist([model, key.kind, key.channel, key.ref])) added++;
        this.db.putSync([model, key.kind, key.channel, key.ref], { hash, dim: vectors[0]?.length ?? 0, chunks: vectors.length, vec: new Uint8Array(vec.buffer, vec.byteOffset, vec.byteLength) });
      }
    });
    this.counts.set(model, count + added);
    const cache = this.loaded.get(model);
    if (cache) for (const { key, hash, vectors, vec } of ready) cache.set(docId(key), { key, hash, dim: vectors[0]?.length ?? 0, vec });
  }

  async remove(keys: DocKey[], models: string[]): Promise<void> {
    const removed = new Map(models.map((m) => [m, 0]));
    const before = new Map(models.map((m) => [m, this.count(m)]));
    await this.db.transaction(() => {
      for (const model of models) {
        for (const key of keys) if (this.db.removeSync([model, key.kind, key.channel, key.ref])) removed.set(model, removed.get(model)! + 1);
      }
    });
    for (const model of models) {
      this.counts.set(model, before.get(model)! - removed.get(model)!);
      const cache = this.loaded.get(model);
      if (cache) for (const key of keys) cache.delete(docId(key));
    }
  }

  /** Every model with stored vectors, and its row count. */
  models(): Map<string, number> {
    const out = new Map<string, number>();
    for (const key of this.db.getKeys()) out.set(key[0], (out.get(key[0]) ?? 0) + 1);
    return out;
  }

  /** The documents `model` has vectors for. */
  keys(model: string): DocKey[] {
    return [...this.db.getKeys(prefixRange([model]))].map((k) => ({ kind: k[1], channel: k[2], ref: k[3] }));
  }

  count(model: string): number {
    let n = this.counts.get(model);
    if (n === undefined) this.counts.set(model, (n = this.db.getKeysCount(prefixRange([model]))));
    return n;
  }

  /** Deletes every vector of `model`; the number of documents it had. */
  async drop(model: string): Promise<number> {
    const keys = [...this.db.getKeys(prefixRange([model]))];
    await this.db.transaction(() => {
      for (const key of keys) this.db.removeSync(key);
    });
    this.loaded.delete(model);
    this.counts.delete(model);
    return keys.length;
  }

  /** Documents of `model` whose key passes `visible`, scored by their best chunk against `query` (normalised here), best first, at most `top`. */
  nearest(model: string, query: number[], top: number, visible: (key: DocKey, hash: string) => boolean): ScoredDoc[] {
    const q = normalised([query]);
    const cache = this.cache(model);
    // Scores go in a typed array and only the best `top` become objects: 100k documents allocate nothing per document.
    const docs: DocVectors[] = [];
    const scores = new Float32Array(cache.size);
    for (const doc of cache.values()) {
      if (doc.dim !== q.length || !visible(doc.key, doc.hash)) continue;
      let best = -Infinity;
      for (let at = 0; at < doc.vec.length; at += doc.dim) {
        let dot = 0;
        for (let i = 0; i < doc.dim; i++) dot += doc.vec[at + i]! * q[i]!;
        if (dot > best) best = dot;
      }
      scores[docs.length] = best;
      docs.push(doc);
    }
    const n = docs.length;
    const threshold = n <= top ? -Infinity : scores.slice(0, n).sort()[n - top]!;
    const out: ScoredDoc[] = [];
    for (let i = 0; i < n; i++) if (scores[i]! >= threshold) out.push({ key: docs[i]!.key, hash: docs[i]!.hash, score: scores[i]! });
    out.sort((a, b) => b.score - a.score);
    return out.slice(0, top);
  }

  private cache(model: string): Map<string, DocVectors> {
    let cache = this.loaded.get(model);
    if (cache) return cache;
    cache = new Map();
    for (const { key, value } of this.db.getRange(prefixRange([model]))) {
      const bytes = value.vec;
      const vec = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      const doc: DocKey = { kind: key[1], channel: key[2], ref: key[3] };
      cache.set(docId(doc), { key: doc, hash: value.hash, dim: value.dim, vec });
    }
    this.loaded.set(model, cache);
    return cache;
  }
}

/** The vectors end to end, each scaled to length 1; NaN and infinities stored as 0 (reference §8.6). */
function normalised(vectors: number[][]): Float32Array {
  const dim = vectors[0]?.length ?? 0;
  const out = new Float32Array(vectors.length * dim);
  vectors.forEach((v, row) => {
    const clean = v.map((x) => (Number.isFinite(x) ? x : 0));
    const norm = Math.sqrt(clean.reduce((s, x) => s + x * x, 0)) || 1;
    clean.forEach((x, i) => (out[row * dim + i] = x / norm));
  });
  return out;
}
