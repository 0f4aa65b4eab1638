/**
 * `memory_kg_assert` (reference runtime-nodes §8.7): appends triples to the scope owner's knowledge
 * graph, normalised, predicates checked against the registry (custom `ex:` ones only when allowed),
 * exact duplicates skipped. With an embedding model configured each triple's statement is embedded
 * for semantic queries.
 */
import { randomUUID } from 'node:crypto';
import { effectNode, type EffectContext } from '@keel/plugin-gateway-runs';
import { coerceBool, given, listOf, scopeRunOf, textOf, type MemoryDeps } from '../memory-deps.js';
import type { StoredVector, Triple } from '../kg-store.js';
import { ALLOWED_PREDICATES, isCustomPredicate, normalPredicate, normalTerm, statementOf } from '../kg-terms.js';
import { isoNow } from '../python-text.js';
import { ownerOf, parseScope, unknownScope, WRITE_SCOPES } from '../scopes.js';
import { MAX_ID_CHARS } from '../span-store.js';

type AssertPayload = { assertions: unknown[]; scope?: string; span_id?: string; owner_id?: string; attributes_defaults?: Record<string, unknown>; allow_custom_predicates?: boolean; dedupe?: boolean };
const SHOWN = 12;

export function kgAssertNode(deps: MemoryDeps) {
  return effectNode<AssertPayload, Record<string, unknown>>({
    // Writes and reads Keel's own storage only: no commit is needed before it (effect-durability.ts).
    sideEffects: 'local',
    payload: (inputs) => {
      const source = [inputs.assertions, inputs.triples, inputs.items].find(given);
      const defaults = inputs.attributes_defaults;
      return {
        assertions: listOf(source),
        ...(given(inputs.scope) && textOf(inputs.scope) ? { scope: textOf(inputs.scope) } : {}),
        ...(given(inputs.span_id) && textOf(inputs.span_id) ? { span_id: textOf(inputs.span_id) } : {}),
        ...(given(inputs.owner_id) && textOf(inputs.owner_id) ? { owner_id: textOf(inputs.owner_id) } : {}),
        ...(defaults && typeof defaults === 'object' && !Array.isArray(defaults) ? { attributes_defaults: defaults as Record<string, unknown> } : {}),
        ...(given(inputs.allow_custom_predicates) ? { allow_custom_predicates: coerceBool(inputs.allow_custom_predicates) } : {}),
        ...(given(inputs.dedupe) ? { dedupe: coerceBool(inputs.dedupe) } : {}),
      };
    },
    perform: (payload, context) => assertTriples(deps, payload, context),
    outputs: (result) => ({ assertion_ids: result.assertion_ids ?? [], count: result.count ?? 0, ok: result.ok ?? false, raw: result }),
  });
}

async function assertTriples(deps: MemoryDeps, payload: AssertPayload, context: EffectContext): Promise<Record<string, unknown>> {
  const items = payload.assertions ?? [];
  if (items.length === 0) return { ok: true, count: 0, assertion_ids: [], skipped: true };
  if (items.length > deps.config.kgMaxAssertions) throw new Error(`MEMORY_KG_ASSERT got ${items.length} assertions; at most ${deps.config.kgMaxAssertions} per call (the memory plugin's kgMaxAssertions).`);
  const scope = parseScope(payload.scope, WRITE_SCOPES);
  if (!scope) throw unknownScope(payload.scope);
  const owner = payload.owner_id ?? ownerOf(scope, scopeRunOf(context));
  if (owner.length > MAX_ID_CHARS) throw new Error(`MEMORY_KG_ASSERT owner_id is longer than ${MAX_ID_CHARS} characters.`);
  const now = isoNow();

  const invalid: string[] = [];
  const unknown: string[] = [];
  const triples: Triple[] = [];
  items.forEach((item, i) => {
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      invalid.push(`#${i}: not an object`);
      return;
    }
    const a = item as Record<string, unknown>;
    const attributes = { ...(payload.attributes_defaults ?? {}), ...(a.attributes && typeof a.attributes === 'object' ? (a.attributes as Record<string, unknown>) : {}) };
    const subject = normalTerm(a.subject ?? a.s);
    const predicate = normalPredicate(a.predicate ?? a.p);
    const object = normalTerm(a.object ?? a.o, coerceBool(attributes.literal));
    if (!subject || !predicate || !object) {
      invalid.push(`#${i}: subject, predicate and object must be non-empty`);
      return;
    }
    if (!ALLOWED_PREDICATES.has(predicate) && !(payload.allow_custom_predicates && isCustomPredicate(predicate))) {
      if (!unknown.includes(predicate)) unknown.push(predicate);
      return;
    }
    const provenance: Record<string, unknown> = {
      ...(a.provenance && typeof a.provenance === 'object' ? (a.provenance as Record<string, unknown>) : {}),
    };
    if (payload.span_id && provenance.span_id === undefined) provenance.span_id = payload.span_id;
    provenance.writer_run_id ??= context.runId;
    provenance.writer_workflow_id ??= context.workflowId;
    const triple: Triple = {
      id: randomUUID(),
      subject,
      predicate,
      object,
      scope,
      owner_id: owner,
      observed_at: now,
      provenance,
      attributes,
    };
    if (a.observed_at !== undefined && a.observed_at !== null && a.observed_at !== '') {
      // Part of an index key: a real timestamp of bounded length.
      if (typeof a.observed_at !== 'string' || a.observed_at.length > 64 || Number.isNaN(Date.parse(a.observed_at))) {
        invalid.push(`#${i}: observed_at must be an ISO timestamp`);
        return;
      }
      triple.observed_at = a.observed_at;
    }
    if (typeof a.valid_from === 'string' && a.valid_from) triple.valid_from = a.valid_from;
    if (typeof a.valid_until === 'string' && a.valid_until) triple.valid_until = a.valid_until;
    if (typeof a.confidence === 'number') triple.confidence = a.confidence;
    triples.push(triple);
  });
  if (invalid.length) throw new Error(`MEMORY_KG_ASSERT contained invalid assertions: ${invalid.slice(0, SHOWN).join('; ')}${invalid.length > SHOWN ? '…' : ''}`);
  if (unknown.length) throw new Error(`MEMORY_KG_ASSERT rejected unknown predicates. Got: ${unknown.slice(0, SHOWN).join(', ')}${unknown.length > SHOWN ? '…' : ''}`);

  const warnings: string[] = [];
  const vectors = new Map<string, StoredVector>();
  if (deps.embedder) {
    try {
      const out = await deps.embedder.embed(context.account, triples.map(statementOf), context.signal);
      triples.forEach((t, i) => vectors.set(t.id, { model: out.model, vector: out.vectors[i]! }));
    } catch (err) {
      warnings.push(`not embedded (semantic queries will not find these triples): ${(err as Error).message}`);
    }
  }
  const dedupe = payload.dedupe !== false;
  const { ids, skipped } = await deps.kg.add(context.account, triples, dedupe, vectors);
  return { ok: true, count: ids.length, assertion_ids: ids, count_attempted: triples.length, skipped_duplicates: skipped, ...(warnings.length ? { warnings } : {}) };
}
