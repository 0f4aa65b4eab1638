/**
 * `memory_kg_query` (reference runtime-nodes §8.7): the triples of the scope's owners matching the
 * exact subject/predicate/object, the time window and `active_at`, newest first; with `query_text`,
 * ranked by cosine similarity to the query through the configured embedding model (none: `ok:
 * false` with the reason, the run goes on). A token budget adds packets and the active-memory text.
 */
import { effectNode, type EffectContext } from '@keel/plugin-gateway-runs';
import { cosine, noEmbedderReason } from '../embedder.js';
import { given, scopeRunOf, textOf, type MemoryDeps } from '../memory-deps.js';
import { packetOf, packLines } from '../kg-packets.js';
import type { Triple } from '../kg-store.js';
import { normalPredicate, normalTerm } from '../kg-terms.js';
import { timeOf } from '../python-text.js';
import { clampTo, intOf, policyOf, recallLevelOf } from '../recall-levels.js';
import { ownersOf, parseScope, READ_SCOPES, type WriteScope } from '../scopes.js';

const PINS = ['query_text', 'subject', 'predicate', 'object', 'since', 'until', 'active_at', 'scope', 'recall_level', 'owner_id', 'min_score', 'max_input_tokens', 'model', 'limit', 'order'] as const;
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;

type QueryPayload = Record<string, unknown>;

export function kgQueryNode(deps: MemoryDeps) {
  return effectNode<QueryPayload, Record<string, unknown>>({
    payload: (inputs) => {
      const payload: QueryPayload = {};
      for (const key of PINS) if (given(inputs[key]) && inputs[key] !== '') payload[key] = inputs[key];
      if (!('max_input_tokens' in payload) && given(inputs.max_in_tokens) && inputs.max_in_tokens !== '') payload.max_input_tokens = inputs.max_in_tokens;
      return payload;
    },
    perform: (payload, context) => queryKg(deps, payload, context),
    outputs: (result) => ({
      items: result.items ?? [],
      count: result.count ?? 0,
      ok: result.ok ?? false,
      packets: result.packets ?? [],
      active_memory_text: result.active_memory_text ?? '',
      packed_count: result.packed_count ?? 0,
      dropped: result.dropped ?? 0,
      estimated_tokens: result.estimated_tokens ?? 0,
      packets_version: result.packets_version ?? null,
      warnings: result.warnings ?? [],
      raw: result,
    }),
  });
}

/** A triple as the node outputs it: nulls left out. */
function itemOf(t: Triple): Record<string, unknown> {
  return Object.fromEntries(Object.entries(t).filter(([, v]) => v !== null && v !== undefined));
}

async function queryKg(deps: MemoryDeps, p: QueryPayload, context: EffectContext): Promise<Record<string, unknown>> {
  const level = recallLevelOf(p.recall_level);
  const policy = level ? policyOf(level) : null;
  const scopeText = textOf(p.scope).trim().toLowerCase() || 'run';
  const scope = parseScope(p.scope, READ_SCOPES);
  if (!scope) return { ok: false, count: 0, items: [], error: `Unknown memory scope: ${textOf(p.scope)}` };
  const warnings: string[] = [];
  const asked = intOf(p.limit);
  const limit = Math.min(MAX_LIMIT, Math.max(1, clampTo(level, 'limit', asked, policy?.kgLimit ?? null, warnings, DEFAULT_LIMIT)));
  const budget = clampTo(level, 'max_input_tokens', intOf(p.max_input_tokens), policy?.kgMaxInputTokens ?? null, warnings, 0);
  const askedScore = given(p.min_score) && Number.isFinite(Number(p.min_score)) ? Number(p.min_score) : null;
  const minScore = policy ? Math.max(policy.kgMinScore.floor, askedScore ?? policy.kgMinScore.default) : askedScore;

  const subject = given(p.subject) ? normalTerm(p.subject) : null;
  const predicate = given(p.predicate) ? normalPredicate(p.predicate) : null;
  const object = given(p.object) ? normalTerm(p.object) : null;
  const since = timeOf(p.since);
  const until = timeOf(p.until);
  const activeAt = timeOf(p.active_at);
  const ownerFilter = given(p.owner_id) ? textOf(p.owner_id) : null;
  const queryText = textOf(p.query_text).trim();
  if (queryText && !deps.embedder) {
    return { ok: false, count: 0, items: [], error: `semantic query_text needs an embedding model: ${noEmbedderReason(deps.inference !== null)}; query by subject, predicate or object instead` };
  }

  const owners: Array<{ scope: WriteScope; owner: string }> = ownerFilter && scope !== 'all' ? [{ scope, owner: ownerFilter }] : ownersOf(scope, scopeRunOf(context));
  let matched: Triple[] = [];
  for (const { owner } of owners) {
    for (const t of deps.kg.newestOf(context.account, owner, deps.config.kgScanMax)) {
      if (subject !== null && t.subject.toLowerCase() !== subject) continue;
      if (predicate !== null && t.predicate.toLowerCase() !== predicate) continue;
      if (object !== null && t.object.toLowerCase() !== object) continue;
      const observed = timeOf(t.observed_at);
      if (!Number.isNaN(since) && observed < since) continue;
      if (!Number.isNaN(until) && observed > until) continue;
      if (!Number.isNaN(activeAt)) {
        const from = timeOf(t.valid_from);
        const to = timeOf(t.valid_until);
        if (!Number.isNaN(from) && activeAt < from) continue;
        if (!Number.isNaN(to) && activeAt >= to) continue;
      }
      matched.push(t);
    }
  }
  const semantic = Boolean(queryText);
  if (semantic) {
    const { vectors, model } = await deps.embedder!.embed(context.account, [queryText], context.signal);
    const q = vectors[0]!;
    const scored: Triple[] = [];
    let unembedded = 0;
    for (const t of matched) {
      const stored = deps.kg.vector(context.account, t.id);
      if (!stored || stored.model !== model) {
        unembedded++;
        continue;
      }
      const score = cosine(q, stored.vector);
      if (minScore !== null && score < minScore) continue;
      scored.push({ ...t, attributes: { ...t.attributes, _retrieval: { score, metric: 'cosine' } } });
    }
    if (unembedded) warnings.push(`${unembedded} triple(s) have no embedding from ${model} and were not ranked`);
    const scoreOf = (t: Triple) => (t.attributes._retrieval as { score: number }).score;
    matched = scored.sort((a, b) => scoreOf(b) - scoreOf(a) || b.observed_at.localeCompare(a.observed_at));
  } else {
    const asc = textOf(p.order).trim().toLowerCase() === 'asc';
    matched.sort((a, b) => (asc ? a.observed_at.localeCompare(b.observed_at) : b.observed_at.localeCompare(a.observed_at)));
  }
  const items = matched.slice(0, limit);
  const result: Record<string, unknown> = { ok: true, count: items.length, items: items.map(itemOf) };
  if (budget > 0) {
    const packets = items.map(packetOf);
    result.packets_version = 0;
    result.packets = packets;
    Object.assign(result, packLines(packets, scopeText, semantic, budget));
  }
  if (warnings.length) result.warnings = warnings;
  return result;
}
