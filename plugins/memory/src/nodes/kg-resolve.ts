/**
 * `memory_kg_resolve` (reference runtime-nodes §8.7): the `ex:` entities a label names, exact hits
 * first (a name-like predicate whose object is the label, score 1.0), then, when the recall level
 * or `include_semantic` asks and an embedding model is configured, entities near the label in
 * meaning. An empty label answers `ok: false` and the run goes on.
 */
import { effectNode, type EffectContext } from '@keel/plugin-gateway-runs';
import { cosine } from '../embedder.js';
import { coerceBool, given, scopeRunOf, textOf, type MemoryDeps } from '../memory-deps.js';
import type { Triple } from '../kg-store.js';
import { intOf, recallLevelOf } from '../recall-levels.js';
import { ownersOf, parseScope, READ_SCOPES } from '../scopes.js';

const NAME_PREDICATES = new Set(['schema:name', 'skos:preflabel', 'skos:altlabel', 'dcterms:title', 'dcterms:identifier']);
const PINS = ['label', 'expected_type', 'scope', 'recall_level', 'max_candidates', 'min_score', 'include_semantic', 'owner_id'] as const;
const EVIDENCE = 3;

interface Candidate {
  id: string;
  label: string;
  types: string[];
  scope: string;
  owner_id: string;
  score: number;
  evidence: Triple[];
  observed_at: string;
}

export function kgResolveNode(deps: MemoryDeps) {
  return effectNode<Record<string, unknown>, Record<string, unknown>>({
    // Writes and reads Keel's own storage only: no commit is needed before it (effect-durability.ts).
    sideEffects: 'local',
    payload: (inputs) => Object.fromEntries(PINS.filter((k) => given(inputs[k]) && inputs[k] !== '').map((k) => [k, inputs[k]])),
    perform: (payload, context) => resolve(deps, payload, context),
    outputs: (result) => ({ candidates: result.candidates ?? [], count: result.count ?? 0, ok: result.ok ?? false, raw: result }),
  });
}

async function resolve(deps: MemoryDeps, p: Record<string, unknown>, context: EffectContext): Promise<Record<string, unknown>> {
  const label = textOf(p.label).replace(/\s+/g, ' ').trim().toLowerCase();
  const expectedType = given(p.expected_type) ? textOf(p.expected_type).trim().toLowerCase() : null;
  if (!label) return { ok: false, count: 0, candidates: [], error: 'label is required' };
  const level = recallLevelOf(p.recall_level);
  const scope = parseScope(p.scope, READ_SCOPES);
  if (!scope) return { ok: false, count: 0, candidates: [], error: `Unknown memory scope: ${textOf(p.scope)}` };
  const maxCandidates = Math.min(50, Math.max(1, intOf(p.max_candidates) ?? 10));
  const minScore = given(p.min_score) && Number.isFinite(Number(p.min_score)) ? Number(p.min_score) : level === 'urgent' ? 0.55 : level === 'deep' ? 0.25 : 0.4;
  const warnings: string[] = [];

  const owners = given(p.owner_id) && scope !== 'all' ? [{ scope, owner: textOf(p.owner_id) }] : ownersOf(scope, scopeRunOf(context));
  const all: Triple[] = owners.flatMap(({ owner }) => deps.kg.newestOf(context.account, owner, deps.config.kgScanMax));
  const bySubject = new Map<string, Triple[]>();
  for (const t of all) bySubject.set(t.subject, [...(bySubject.get(t.subject) ?? []), t]);

  const found = new Map<string, Candidate>();
  const add = (t: Triple, score: number) => {
    if (!t.subject.startsWith('ex:')) return;
    const prior = found.get(t.subject);
    if (prior && prior.score >= score) return;
    const about = bySubject.get(t.subject) ?? [];
    found.set(t.subject, {
      id: t.subject,
      label: t.object,
      types: [...new Set(about.filter((x) => x.predicate === 'rdf:type').map((x) => x.object))],
      scope: t.scope,
      owner_id: t.owner_id,
      score,
      evidence: [t, ...about.filter((x) => x.id !== t.id)].slice(0, EVIDENCE),
      observed_at: t.observed_at,
    });
  };
  for (const t of all) if (NAME_PREDICATES.has(t.predicate) && t.object.replace(/\s+/g, ' ').trim().toLowerCase() === label) add(t, 1.0);

  const semanticMax = level === 'urgent' ? 3 : level === 'deep' ? 10 : 5;
  const wantSemantic = given(p.include_semantic) ? coerceBool(p.include_semantic) : level === 'deep' || (level !== 'urgent' && found.size === 0);
  if (wantSemantic) {
    if (!deps.embedder) warnings.push("semantic resolution skipped: no embedding model is configured (the memory plugin's setting embeddingModel)");
    else {
      const { vectors, model } = await deps.embedder.embed(context.account, [label], context.signal);
      const scored = all
        .filter((t) => NAME_PREDICATES.has(t.predicate) && !found.has(t.subject))
        .map((t) => {
          const stored = deps.kg.vector(context.account, t.id);
          return { t, score: stored && stored.model === model ? cosine(vectors[0]!, stored.vector) : -1 };
        })
        .filter((s) => s.score >= minScore)
        .sort((a, b) => b.score - a.score)
        .slice(0, semanticMax);
      for (const s of scored) add(s.t, s.score);
    }
  }
  const candidates = [...found.values()]
    .filter((c) => !expectedType || c.types.includes(expectedType))
    .sort((a, b) => b.score - a.score || b.observed_at.localeCompare(a.observed_at))
    .slice(0, maxCandidates)
    .map(({ observed_at: _at, ...c }) => c);
  return { ok: true, count: candidates.length, candidates, raw: { label, expected_type: expectedType }, ...(warnings.length ? { warnings } : {}) };
}
