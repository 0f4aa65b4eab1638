/**
 * `memory_tag` (reference runtime-nodes §8.4): adds tags to a span of the scope's owners (merged by
 * default, replaced with `merge: false`); the span is named by its id or by a 1-based index into its
 * owner's list (not with `all`).
 */
import { effectNode, type EffectContext } from '@keel/plugin-gateway-runs';
import { coerceBool, executed, given, scopeRunOf, textOf, type MemoryDeps } from '../memory-deps.js';
import { isoNow, pythonJson } from '../python-text.js';
import { ownersOf, parseScope, READ_SCOPES, unknownScope } from '../scopes.js';
import { cleanTags } from '../tags.js';

type TagPayload = { span_id: string; tags: unknown; merge?: boolean; scope?: string };

export function memoryTagNode(deps: MemoryDeps) {
  return effectNode<TagPayload, ReturnType<typeof executed>>({
    payload: (inputs) => ({
      span_id: textOf(inputs.span_id).trim(),
      tags: inputs.tags ?? {},
      ...(given(inputs.merge) ? { merge: coerceBool(inputs.merge) } : {}),
      ...(given(inputs.scope) && textOf(inputs.scope) ? { scope: textOf(inputs.scope) } : {}),
    }),
    perform: (payload, context) => tag(deps, payload, context),
    outputs: (result) => {
      const first = result.results[0] ?? {};
      return { rendered: first.output ?? '', success: first.success ?? false, results: result.results, raw: result };
    },
  });
}

async function tag(deps: MemoryDeps, payload: TagPayload, context: EffectContext) {
  const spanRef = textOf(payload.span_id).trim();
  if (!spanRef) throw new Error('MEMORY_TAG requires payload.span_id');
  const tags = cleanTags(payload.tags, deps.config, 'MEMORY_TAG');
  if (!Object.values(tags).some((v) => v.trim())) throw new Error('MEMORY_TAG requires payload.tags with at least one non-empty string value');
  const scope = parseScope(payload.scope, READ_SCOPES);
  if (!scope) throw unknownScope(payload.scope);
  const owners = ownersOf(scope, scopeRunOf(context));
  const account = context.account;

  let found: { owner: string; spanId: string } | null = null;
  if (/^\d+$/.test(spanRef)) {
    if (scope === 'all') throw new Error(`MEMORY_TAG cannot use an index (${spanRef}) with scope=all; name the span by its id`);
    const list = deps.spans.spansOf(account, owners[0]!.owner);
    const record = list[Number(spanRef) - 1];
    if (record) found = { owner: owners[0]!.owner, spanId: record.artifact_id };
  } else {
    const at = deps.spans.record(account, spanRef);
    if (at && owners.some((o) => o.owner === at.owner)) found = { owner: at.owner, spanId: spanRef };
  }
  if (!found) throw new Error(`Unknown span_id: ${spanRef}`);

  const current = deps.spans.record(account, found.spanId)!.record;
  const merged = payload.merge === false ? tags : { ...((current.tags ?? {}) as Record<string, string>), ...tags };
  const artifactTags = { kind: current.kind, ...merged };
  await deps.spans.update(account, found.spanId, { ...current, tags: merged, tagged_at: isoNow(), tagged_by: context.actorId }, artifactTags);
  return executed('tag_memory', `Tagged span_id=${found.spanId} scope=${scope} runs=[${found.owner}] tags=${pythonJson(merged)}`, {
    applied: [{ run_id: found.owner, artifact_id: found.spanId, tags: merged }],
  });
}
