/**
 * Semantic search as the hub offers it (reference §8.6): the embedding setting and its status, the
 * meaning side of a search (the query embedded, nearest documents the viewer may see), and the
 * drift report. Without the inference plugin every part reports `unavailable` with the reason.
 */
import { conflict, HttpError, isHttpError } from '@keel/plugin-sdk';
import { nowSeconds } from '../../ids.js';
import type { AgentRecord } from '../../records.js';
import type { HubDb } from '../../store/hub-db.js';
import type { SearchRequest } from '../search-request.js';
import { INFERENCE_MISSING, type Embedder } from './embedder.js';
import type { EmbeddingSetting } from './embedding-setting.js';
import type { SemanticCorpus } from './semantic-docs.js';
import type { SemanticIndexer, SemanticLimits } from './semantic-indexer.js';
import type { ScoredDoc, VectorStore } from './vector-store.js';

/** What the search report says about meaning, and the ranked documents when it ran. */
export interface MeaningPlan {
  mode_used: 'lexical' | 'fused' | 'semantic';
  semantic_coverage: number | null;
  notice: string | null;
  /** Nearest visible documents, best first; null when semantic did not run. */
  ranked: ScoredDoc[] | null;
}

export interface EmbeddingStatus {
  state: string;
  available: boolean;
  reason?: string;
  model: string | null;
  resolved_model?: string | null;
  pending_model: null;
  url: null;
  computed_at: number;
  coverage?: number;
  rows?: number;
  queued?: number;
  embedded_total_session?: number;
  last_error?: string | null;
  breaker?: ReturnType<SemanticIndexer['breaker']>;
  set_by?: string | null;
  set_at?: number | null;
}

const ZERO = 'a zero here does not prove absence.';

export class SemanticSearch {
  constructor(
    private readonly db: HubDb,
    private readonly setting: EmbeddingSetting,
    private readonly vectors: VectorStore,
    private readonly corpus: SemanticCorpus,
    private readonly limits: SemanticLimits,
    /** Null when the inference plugin is not loaded. */
    private readonly embedder: Embedder | null,
    private readonly indexer: SemanticIndexer | null,
  ) {}

  async status(): Promise<EmbeddingStatus> {
    const choice = this.setting.get();
    const base = { model: choice.model, pending_model: null, url: null, computed_at: nowSeconds() };
    if (!this.embedder || !this.indexer) return { state: 'unavailable', available: false, reason: INFERENCE_MISSING, ...base };
    const { state, resolved, coverage } = await this.stateOf();
    return {
      state, available: true, ...base, resolved_model: resolved, coverage: Math.round(coverage * 10_000) / 10_000,
      rows: resolved ? this.vectors.count(resolved) : 0, queued: this.indexer.queued(), embedded_total_session: this.indexer.embeddedSession,
      last_error: this.indexer.lastError, breaker: this.indexer.breaker(), set_by: choice.set_by, set_at: choice.set_at,
    };
  }

  /** `PUT /admin/embedding`: probes the model, then makes it the hub's choice and (re)fills the vectors. */
  async choose(model: string, acceptRecompute: boolean, by: string): Promise<Record<string, unknown>> {
    const { embedder, indexer } = this.require();
    const current = this.setting.get().model;
    if (current === model) return { changed: false, probe: await this.probe(model), model, state: (await this.stateOf()).state };
    const resolvedNow = current === null ? null : await embedder.resolve(current).catch(() => null);
    const rows = resolvedNow ? this.vectors.count(resolvedNow) : 0;
    if (current !== null && rows > 0 && !acceptRecompute) {
      throw conflict(`changing the embedding model erases ${rows} docs' vectors and recomputes them. Pass accept_recompute=true to proceed; until the new fill completes, search serves keyword results with a notice.`);
    }
    const probe = await this.probe(model);
    // A model the inference plugin does not know is the caller's mistake (400); a model that fails to run is the reference's 502.
    if (!probe.ok) throw new HttpError(probe.unknown ? 400 : 502, `embedding model refused the probe: ${probe.error} — GET /api/gateway/discovery/providers/local/models lists the models this server serves`);
    await this.setting.set(model, by);
    indexer.clearError();
    indexer.requestReconcile();
    return { changed: true, model, pending: false, probe, docs_to_embed: this.docsCount(), state: (await this.stateOf()).state };
  }

  /** `DELETE /admin/embedding`: no model; `erase` also deletes every stored vector. */
  async disable(erase: boolean, by: string): Promise<{ disabled: true; erased_rows: number }> {
    await this.setting.set(null, by);
    let erased = 0;
    if (erase) for (const model of this.vectors.models().keys()) erased += await this.vectors.drop(model);
    return { disabled: true, erased_rows: erased };
  }

  /** The meaning side of one search; never throws (a failure becomes the report's notice). */
  async plan(viewer: AgentRecord, request: SearchRequest): Promise<MeaningPlan> {
    const lexical = (notice: string | null, coverage: number | null = null): MeaningPlan => ({ mode_used: 'lexical', semantic_coverage: coverage, notice, ranked: null });
    const wanted = request.mode !== 'lexical' && request.terms.length > 0 && request.sort !== 'recent';
    if (!wanted) return lexical(null);
    const explicit = request.mode === 'semantic';
    if (!this.embedder || !this.indexer) return lexical(explicit ? `search lexical-only: semantic search is unavailable on this hub (the inference plugin is not loaded) — ${ZERO}` : null);
    const model = this.setting.get().model;
    if (model === null) return lexical(explicit ? `search lexical-only: semantic is not enabled on this hub — ${ZERO}` : null);
    const { state, resolved, coverage } = await this.stateOf();
    if (state === 'filling') return lexical(`search lexical-only: semantic index still filling (${Math.floor(coverage * 100)}%) — ${ZERO}`, coverage);
    if (state !== 'ready' || !resolved) return lexical(`search degraded: ${state} — served lexical only; ${ZERO}`, coverage);
    let query: number[];
    try {
      query = (await this.embedder.embed(model, [request.terms.length ? queryText(request) : ''])).vectors[0]!;
    } catch {
      return lexical(`search degraded: embedding model unreachable — served lexical only; ${ZERO}`, coverage);
    }
    const member = this.db.channelsOf(viewer.id);
    const channels = new Set(request.channels ? member.filter((c) => request.channels!.includes(c)) : member);
    const kinds = new Set(request.kind === null ? ['message', 'file'] : [request.kind]);
    // Only documents the viewer may see now, whose vectors match their current text.
    const ranked = this.vectors.nearest(resolved, query, this.limits.topDocs, (key) => channels.has(key.channel) && kinds.has(key.kind));
    return { mode_used: explicit ? 'semantic' : 'fused', semantic_coverage: coverage, notice: null, ranked };
  }

  /** `GET /admin/search/drift`'s vector part: how the stored vectors compare with the documents now. */
  vectorDrift(resolved: string | null): { docs: number; current: number; stale: number; missing: number; orphaned: number; other_models: Record<string, number> } {
    let docs = 0, current = 0, stale = 0, missing = 0;
    for (const key of this.corpus.all()) {
      const doc = this.corpus.read(key);
      if (!doc) continue;
      docs++;
      const stored = resolved ? this.vectors.hashOf(resolved, key) : undefined;
      if (stored === undefined) missing++;
      else if (stored === doc.hash) current++;
      else stale++;
    }
    const orphaned = resolved ? this.vectors.keys(resolved).filter((k) => !this.corpus.read(k)).length : 0;
    const other_models = Object.fromEntries([...this.vectors.models()].filter(([m]) => m !== resolved));
    return { docs, current, stale, missing, orphaned, other_models };
  }

  async resolvedModel(): Promise<string | null> {
    const model = this.setting.get().model;
    if (!this.embedder || model === null) return null;
    return this.embedder.resolve(model).catch(() => null);
  }

  /** Queues a full reconcile (the rebuild route); false when semantic search is off or unavailable. */
  refill(): boolean {
    if (!this.indexer || this.setting.get().model === null) return false;
    this.indexer.requestReconcile();
    return true;
  }

  private async stateOf(): Promise<{ state: string; resolved: string | null; coverage: number }> {
    const indexer = this.indexer!;
    const model = this.setting.get().model;
    if (model === null) return { state: 'disabled', resolved: null, coverage: 0 };
    let resolved: string;
    try {
      resolved = await this.embedder!.resolve(model);
    } catch (err) {
      return { state: `degraded(${short(err instanceof Error ? err.message : String(err))})`, resolved: null, coverage: 0 };
    }
    const rows = this.vectors.count(resolved);
    const queued = indexer.queued();
    const coverage = rows + queued === 0 ? 1 : rows / (rows + queued);
    if (indexer.lastError) return { state: `degraded(${short(indexer.lastError)})`, resolved, coverage };
    // Ready once a reconcile for this very model finished, none is due, and the queue is (nearly) drained.
    return { state: indexer.settledFor(resolved) && coverage >= 0.99 ? 'ready' : 'filling', resolved, coverage };
  }

  private async probe(model: string): Promise<{ ok: true; dim: number } | { ok: false; error: string; unknown: boolean }> {
    try {
      const out = await this.require().embedder.embed(model, ['probe']);
      return { ok: true, dim: out.vectors[0]?.length ?? 0 };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err), unknown: isHttpError(err) && err.status < 500 };
    }
  }

  private docsCount(): number {
    let n = 0;
    for (const _ of this.corpus.all()) n++;
    return n;
  }

  private require(): { embedder: Embedder; indexer: SemanticIndexer } {
    if (!this.embedder || !this.indexer) throw new HttpError(409, `semantic search is unavailable: ${INFERENCE_MISSING}`);
    return { embedder: this.embedder, indexer: this.indexer };
  }
}

/** The query as the model embeds it: its words, as the search parsed them. */
function queryText(request: SearchRequest): string {
  return request.terms.join(' ');
}

function short(text: string): string {
  return text.length > 60 ? text.slice(0, 60) : text;
}
