/**
 * `memory_query` ("Recall", reference runtime-nodes §8.3): the spans of the scope's owners, newest
 * first, filtered by time, tags, authors, locations and the query text (a case-insensitive
 * substring of each span's metadata and text, then a deep scan of archived messages); with an
 * embedding model configured, spans whose text is near the query in meaning count too. The result
 * says which (`meta.retrieval`).
 */
import { effectNode, type EffectContext } from '@keel/plugin-gateway-runs';
import type { ContextMessage } from '../context-messages.js';
import { cosine, noEmbedderReason } from '../embedder.js';
import { executed, given, listOf, scopeRunOf, textOf, type MemoryDeps } from '../memory-deps.js';
import { clampTo, intOf, policyOf, recallLevelOf } from '../recall-levels.js';
import { ownersOf, parseScope, READ_SCOPES, unknownScope } from '../scopes.js';
import { renderRecall, type RenderedSpan } from '../span-render.js';
import type { SpanArtifact, SpanRecord } from '../span-store.js';
import { timeOf } from '../python-text.js';

type QueryPayload = Record<string, unknown> & { query: string; limit_spans: number; return: string };
const FILTERS = ['recall_level', 'tags', 'tags_mode', 'usernames', 'locations', 'since', 'until', 'scope'] as const;
const RETURN_MODES = ['both', 'rendered', 'meta'];
/** The node's own default (the kernel's 5 is never used, reference §8.3). */
const NODE_LIMIT = 10;
const DEFAULT_RENDERED_MESSAGES = 80;

interface Candidate extends RenderedSpan {
  text: string;
}

export function memoryQueryNode(deps: MemoryDeps) {
  return effectNode<QueryPayload, ReturnType<typeof executed>>({
    payload: (inputs) => {
      const payload: QueryPayload = { query: textOf(inputs.query), limit_spans: intOf(inputs.limit) ?? NODE_LIMIT, return: 'both' };
      for (const key of FILTERS) if (given(inputs[key]) && inputs[key] !== '') payload[key] = inputs[key];
      return payload;
    },
    perform: (payload, context) => recall(deps, payload, context),
    outputs: (result) => {
      const first = result.results[0] ?? {};
      const meta = (first.meta ?? {}) as { matches?: unknown[]; span_ids?: unknown[] };
      return { results: meta.matches ?? [], rendered: first.output ?? '', span_ids: meta.span_ids ?? [], raw: result };
    },
  });
}

async function recall(deps: MemoryDeps, payload: QueryPayload, context: EffectContext) {
  const level = recallLevelOf(payload.recall_level);
  const scope = parseScope(payload.scope, READ_SCOPES);
  if (!scope) throw unknownScope(payload.scope);
  const mode = String(payload.return ?? 'both');
  if (!RETURN_MODES.includes(mode)) throw new Error(`Unknown memory_query return mode: ${mode}`);
  const policy = level ? policyOf(level) : null;
  const warnings: string[] = [];
  const limit = Math.max(0, clampTo(level, 'limit_spans', intOf(payload.limit_spans), policy?.querySpans ?? null, warnings, NODE_LIMIT));
  const maxMessages = policy ? policy.renderedMessages.default : DEFAULT_RENDERED_MESSAGES;
  const deepScan = policy ? policy.deepScan : true;
  const scanSpans = Math.min(policy ? policy.deepScanMaxSpans : deps.config.deepScanMaxSpans, deps.config.deepScanMaxSpans);
  const scanMessages = Math.min(policy ? policy.deepScanMaxMessages : deps.config.deepScanMaxMessages, deps.config.deepScanMaxMessages);

  const account = context.account;
  const candidates: Candidate[] = [];
  for (const { owner } of ownersOf(scope, scopeRunOf(context))) {
    for (const record of deps.spans.spansOf(account, owner).reverse()) {
      if (record.kind === 'evidence') continue;
      const artifact = deps.spans.artifact(account, record.artifact_id);
      if (!passesFilters(record, artifact, payload)) continue;
      const summary = typeof artifact?.content.summary === 'string' ? artifact.content.summary : null;
      candidates.push({ record, artifact, summary, text: haystack(deps, account, record, artifact, summary) });
    }
  }

  const query = payload.query.trim().toLowerCase();
  const chosen = new Set<Candidate>();
  for (const c of candidates) {
    if (chosen.size >= limit) break;
    if (!query || c.text.includes(query)) chosen.add(c);
  }
  if (query && deepScan) {
    let scanned = 0;
    for (const c of candidates) {
      if (chosen.size >= limit || scanned >= scanSpans) break;
      if (chosen.has(c) || c.record.kind !== 'conversation_span') continue;
      scanned++;
      const messages = Array.isArray(c.artifact?.content.messages) ? (c.artifact!.content.messages as ContextMessage[]) : [];
      if (messages.slice(0, scanMessages).some((m) => textOf(m.content).toLowerCase().includes(query))) chosen.add(c);
    }
  }
  let retrieval: Record<string, unknown> = { mode: 'keyword', reason: deps.embedder ? null : noEmbedderReason(deps.inference !== null) };
  if (query && deps.embedder) {
    const rest = candidates.filter((c) => !chosen.has(c)).slice(0, deps.config.semanticMaxSpans);
    try {
      const texts = rest.map((c) => c.summary ?? textOf(c.artifact?.content.note) ?? '');
      const { model, vectors } = await deps.embedder.embed(account, [payload.query, ...texts], context.signal);
      const [q, ...vs] = vectors;
      const scored = rest.map((c, i) => ({ c, score: cosine(q!, vs[i]!) })).filter((s) => s.score >= deps.config.semanticMinScore).sort((a, b) => b.score - a.score);
      for (const s of scored) if (chosen.size < limit) chosen.add(s.c);
      retrieval = { mode: 'keyword+semantic', model, min_score: deps.config.semanticMinScore };
    } catch (err) {
      retrieval = { mode: 'keyword', reason: `the embedding model failed: ${(err as Error).message}` };
    }
  }
  // Newest first, as the spans were listed.
  const picked = candidates.filter((c) => chosen.has(c));
  const rendered = renderRecall(picked, maxMessages, warnings);
  const matches = picked.map(({ record }) => matchOf(record));
  return executed('recall_memory', mode === 'meta' ? '' : rendered, {
    matches,
    span_ids: matches.map((m) => m.span_id),
    ...(level ? { effort: { recall_level: level, limit_spans: limit, deep_scan: deepScan, max_messages: maxMessages } } : {}),
    ...(warnings.length ? { warnings } : {}),
    retrieval,
  });
}

function matchOf(record: SpanRecord): Record<string, unknown> {
  return {
    span_id: record.artifact_id,
    kind: record.kind,
    created_at: record.created_at,
    from_timestamp: record.from_timestamp,
    to_timestamp: record.to_timestamp,
    tags: record.tags ?? {},
    ...(record.created_by ? { created_by: record.created_by } : {}),
    ...(record.location ? { location: record.location } : {}),
    ...(record.note_preview ? { note_preview: record.note_preview } : {}),
    ...(record.message_count ? { message_count: record.message_count } : {}),
    ...(record.summary_message_id ? { summary_message_id: record.summary_message_id } : {}),
  };
}

/** What a query's text is looked for in (lowercased). */
function haystack(deps: MemoryDeps, account: string, record: SpanRecord, artifact: SpanArtifact | undefined, summary: string | null): string {
  const parts: unknown[] = [summary, record.kind, record.compression_mode, record.focus, record.created_at, record.from_timestamp, record.to_timestamp, record.created_by, record.location];
  const content = artifact?.content ?? {};
  if (record.kind === 'memory_note') {
    parts.push(content.note);
    const cited = ((content.sources ?? {}) as { span_ids?: string[] }).span_ids ?? [];
    for (const id of cited) parts.push(deps.spans.artifact(account, id)?.content.summary);
  }
  for (const [k, v] of Object.entries({ ...(artifact?.tags ?? {}), ...((record.tags ?? {}) as Record<string, unknown>) })) parts.push(k, v);
  return parts.filter((p) => p !== undefined && p !== null).map((p) => textOf(p)).join('\n').toLowerCase();
}

function passesFilters(record: SpanRecord, artifact: SpanArtifact | undefined, payload: QueryPayload): boolean {
  const since = timeOf(payload.since);
  const until = timeOf(payload.until);
  const from = timeOf(record.from_timestamp ?? record.created_at);
  const to = timeOf(record.to_timestamp ?? record.created_at);
  if (!Number.isNaN(since) && !Number.isNaN(to) && to < since) return false;
  if (!Number.isNaN(until) && !Number.isNaN(from) && from > until) return false;

  const usernames = listOf(payload.usernames).map((u) => textOf(u).toLowerCase()).filter(Boolean);
  if (usernames.length && !usernames.includes(textOf(record.created_by).toLowerCase())) return false;

  const spanTags: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...(artifact?.tags ?? {}), ...((record.tags ?? {}) as Record<string, unknown>) })) spanTags[k.toLowerCase()] = textOf(v).toLowerCase();
  for (const key of ['kind', 'compression_mode', 'focus'] as const) if (record[key] !== undefined && record[key] !== null) spanTags[key] = textOf(record[key]).toLowerCase();

  const locations = listOf(payload.locations).map((l) => textOf(l).toLowerCase()).filter(Boolean);
  if (locations.length && !locations.includes(textOf(record.location).toLowerCase()) && !locations.includes(spanTags.location ?? '')) return false;

  const wanted = payload.tags && typeof payload.tags === 'object' && !Array.isArray(payload.tags) ? Object.entries(payload.tags as Record<string, unknown>) : [];
  if (wanted.length) {
    const hits = wanted.map(([k, v]) => listOf(v).map((x) => textOf(x).toLowerCase()).includes(spanTags[k.toLowerCase()] ?? '\u0000'));
    const any = ['any', 'or'].includes(textOf(payload.tags_mode).trim().toLowerCase());
    if (any ? !hits.some(Boolean) : !hits.every(Boolean)) return false;
  }
  return true;
}
