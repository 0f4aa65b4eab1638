/**
 * `memory_rehydrate` ("Recall into context", reference runtime-nodes §8.6): puts archived spans back
 * into the run's context: a conversation span's messages (marked `rehydrated`), a note as its
 * `[MEMORY NOTE]` message; messages already there (same `message_id`) are skipped. The messages are
 * placed in `applyToRun` from the recorded result, so a replay places the same.
 */
import { effectNode, type EffectContext } from '@keel/plugin-gateway-runs';
import { insertionIndex, messageIdOf, messagesOf, noteMessage, placementOf, setMessages, type ContextMessage, type Placement } from '../context-messages.js';
import { given, listOf, textOf, type MemoryDeps } from '../memory-deps.js';
import { clampTo, intOf, policyOf, recallLevelOf } from '../recall-levels.js';

type RehydratePayload = { span_ids: string[]; placement: Placement; max_messages?: number; recall_level?: string };
interface Insertion {
  span_id: string;
  messages: ContextMessage[];
}
interface RehydrateResult extends Record<string, unknown> {
  inserted: number;
  skipped: number;
  artifacts: Array<Record<string, unknown>>;
  effort: Record<string, unknown>;
  warnings: string[];
  placement?: Placement;
  insertions?: Insertion[];
}

const PREVIEW_MESSAGES = 3;
const PREVIEW_CHARS = 360;

export function memoryRehydrateNode(deps: MemoryDeps) {
  return effectNode<RehydratePayload, RehydrateResult>({
    // Writes and reads Keel's own storage only: no commit is needed before it (effect-durability.ts).
    sideEffects: 'local',
    payload: (inputs) => {
      const ids = listOf(given(inputs.span_ids) ? inputs.span_ids : inputs.span_id)
        .map((x) => (x && typeof x === 'object' ? (x as { span_id?: unknown }).span_id : x))
        .map((x) => textOf(x).trim())
        .filter(Boolean);
      const max = intOf(inputs.max_messages);
      return {
        span_ids: ids,
        placement: placementOf(inputs.placement),
        ...(max !== null ? { max_messages: max } : {}),
        ...(given(inputs.recall_level) && textOf(inputs.recall_level) ? { recall_level: textOf(inputs.recall_level) } : {}),
      };
    },
    perform: async (payload, context) => rehydrate(deps, payload, context),
    outputs: (result) => ({ inserted: result.inserted, skipped: result.skipped, artifacts: result.artifacts, raw: result }),
    applyToRun: (result, run) => {
      if (!result.insertions?.length) return;
      setMessages(run.vars, place(messagesOf(run.vars), result.insertions, result.placement ?? 'after_summary'));
    },
  });
}

function place(messages: ContextMessage[], insertions: Insertion[], placement: Placement): ContextMessage[] {
  const out = [...messages];
  for (const { span_id, messages: add } of insertions) out.splice(insertionIndex(out, placement, span_id), 0, ...add);
  return out;
}

async function rehydrate(deps: MemoryDeps, payload: RehydratePayload, context: EffectContext): Promise<RehydrateResult> {
  const level = recallLevelOf(payload.recall_level);
  const warnings: string[] = [];
  const policy = level ? policyOf(level) : null;
  const max = level ? clampTo(level, 'max_messages', payload.max_messages ?? null, policy!.rehydrateMessages, warnings, 0) : payload.max_messages ?? null;
  const effort = level ? { recall_level: level, max_messages: max } : {};
  const present = new Set(messagesOf(context.vars).map(messageIdOf).filter((id): id is string => id !== null));
  const artifacts: Array<Record<string, unknown>> = [];
  const insertions: Insertion[] = [];
  let inserted = 0;
  let skipped = 0;

  for (const spanId of payload.span_ids ?? []) {
    const artifact = deps.spans.artifact(context.account, spanId);
    if (!artifact) continue;
    const kind = artifact.tags.kind ?? null;
    if (kind !== 'conversation_span' && kind !== 'memory_note') {
      artifacts.push({ span_id: spanId, inserted: 0, skipped: 0, error: 'unsupported_kind', kind });
      continue;
    }
    const content = artifact.content;
    let candidates: ContextMessage[];
    if (kind === 'memory_note' && typeof content.note === 'string') {
      candidates = [noteMessage(spanId, content.note, String(content.created_at ?? ''))];
    } else if (Array.isArray(content.messages)) {
      candidates = (content.messages as ContextMessage[]).map((m) => ({ ...m, metadata: { ...(m.metadata ?? {}), rehydrated: true, source_artifact_id: spanId } }));
    } else {
      artifacts.push({ span_id: spanId, inserted: 0, skipped: 0, error: 'missing_messages', kind });
      continue;
    }
    if (max !== null && inserted >= max) {
      artifacts.push({ span_id: spanId, inserted: 0, skipped: 0, error: 'max_messages', kind });
      continue;
    }
    const add: ContextMessage[] = [];
    let spanSkipped = 0;
    for (const m of candidates) {
      const id = messageIdOf(m);
      if (id && present.has(id)) {
        spanSkipped++;
        continue;
      }
      if (max !== null && inserted + add.length >= max) break;
      if (id) present.add(id);
      add.push(m);
    }
    inserted += add.length;
    skipped += spanSkipped;
    if (add.length) insertions.push({ span_id: spanId, messages: add });
    const entry: Record<string, unknown> = { span_id: spanId, inserted: add.length, skipped: spanSkipped, error: null, kind };
    if (add.length) entry.preview = previewOf(add, kind);
    artifacts.push(entry);
  }
  return { inserted, skipped, artifacts, effort, warnings, placement: payload.placement, insertions };
}

/** The first inserted messages as `role: content` lines (a note as its text), at most 360 characters. */
function previewOf(messages: ContextMessage[], kind: string): string {
  const lines = messages.slice(0, PREVIEW_MESSAGES).map((m) => (kind === 'memory_note' ? textOf(m.content) : `${m.role}: ${textOf(m.content)}`));
  const text = lines.join('\n');
  return text.length > PREVIEW_CHARS ? text.slice(0, PREVIEW_CHARS) : text;
}
