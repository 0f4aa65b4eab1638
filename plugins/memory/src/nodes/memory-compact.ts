/**
 * `memory_compact` (reference runtime-nodes §8.5): archives the older non-system messages of the
 * run's context as a `conversation_span` and replaces them with one `[CONVERSATION HISTORY SUMMARY
 * span_id=…]` system message, keeping the system messages and the `preserve_recent` newest ones.
 * The new context is made in `applyToRun` from the recorded summary message, so a replay makes the
 * same change.
 */
import { effectNode, type EffectContext } from '@keel/plugin-gateway-runs';
import { summarise } from '../compaction-summary.js';
import { messageIdOf, messagesOf, setMessages, type ContextMessage } from '../context-messages.js';
import { executed, given, textOf, type MemoryDeps } from '../memory-deps.js';
import { isoNow } from '../python-text.js';
import { intOf } from '../recall-levels.js';
import { derivedMessageId, spanIdOf } from '../span-ids.js';
import type { SpanRecord } from '../span-store.js';

type CompactPayload = { preserve_recent?: unknown; compression_mode?: unknown; focus?: unknown };
type CompactResult = ReturnType<typeof executed> & { summary_message?: ContextMessage; preserve_recent?: number; ids_seed?: string; stamped_at?: string };

const DEFAULT_PRESERVE = 6;
const MODES = ['light', 'standard', 'heavy'];

export function memoryCompactNode(deps: MemoryDeps) {
  return effectNode<CompactPayload, CompactResult>({
    payload: (inputs) => {
      const payload: CompactPayload = {};
      for (const key of ['preserve_recent', 'compression_mode', 'focus'] as const) if (given(inputs[key]) && inputs[key] !== '') payload[key] = inputs[key];
      return payload;
    },
    perform: (payload, context) => compact(deps, payload, context),
    outputs: (result) => ({ span_id: (result.results[0]?.meta as { span_id?: string } | undefined)?.span_id ?? null, raw: result }),
    applyToRun: (result, run) => {
      if (!result.summary_message || result.preserve_recent === undefined) return;
      const split = splitContext(stamped(messagesOf(run.vars), result.ids_seed ?? '', result.stamped_at ?? ''), result.preserve_recent);
      setMessages(run.vars, [...split.system, result.summary_message, ...split.recent]);
    },
  });
}

/** The preserve_recent the origin reads: blank, 0 and anything not a positive whole number is 6. */
function preserveOf(value: unknown): number {
  const n = intOf(value);
  return n && n > 0 ? n : DEFAULT_PRESERVE;
}

/** Messages with a `metadata.message_id` and a `timestamp` (derived for those missing, so a replay gives the same). */
function stamped(messages: ContextMessage[], seed: string, at: string): ContextMessage[] {
  return messages.map((m, i) => {
    const id = messageIdOf(m);
    if (id && m.timestamp) return m;
    return { ...m, timestamp: m.timestamp ?? at, metadata: { ...(m.metadata ?? {}), message_id: id ?? derivedMessageId(seed, i) } };
  });
}

function splitContext(messages: ContextMessage[], preserve: number) {
  const system = messages.filter((m) => m.role === 'system');
  const rest = messages.filter((m) => m.role !== 'system');
  const cut = Math.max(0, rest.length - preserve);
  return { system, older: rest.slice(0, cut), recent: rest.slice(cut) };
}

async function compact(deps: MemoryDeps, payload: CompactPayload, context: EffectContext): Promise<CompactResult> {
  const preserve = preserveOf(payload.preserve_recent);
  const modeText = textOf(payload.compression_mode).trim().toLowerCase();
  const mode = MODES.includes(modeText) ? modeText : 'standard';
  const focus = textOf(payload.focus).trim() || null;
  const original = messagesOf(context.vars);
  if (original.length === 0) return executed('compact_memory', 'No messages to compact.', { compacted: 0 });
  if (original.filter((m) => m.role !== 'system').length <= preserve) {
    return executed('compact_memory', `Nothing to compact (non-system messages <= preserve_recent=${preserve}).`, { compacted: 0, preserve_recent: preserve });
  }
  if (!deps.inference) throw new Error('MEMORY_COMPACT needs the inference plugin (@keel/plugin-inference) to write the summary; add it to the config\'s plugins.');

  // Named by what it archives and who writes it: performed again (after a crash), the stored span and summary are the answer.
  const owner = context.runId;
  const spanId = spanIdOf(owner, { writer: [context.runId, context.nodeId], messages: splitContext(original, preserve).older, compression_mode: mode, focus, preserve_recent: preserve });
  const stored = deps.spans.artifact(context.account, spanId);
  if (stored) return compactionResult(spanId, stored.content, preserve, mode, focus);

  const createdAt = isoNow();
  const seed = `${context.runId}:${context.nodeId}:${createdAt}`;
  const { older } = splitContext(stamped(original, seed, createdAt), preserve);
  const summary = await summarise(deps.inference, {
    account: context.account,
    runtime: (context.vars._runtime ?? {}) as Record<string, unknown>,
    messages: older,
    compressionMode: mode,
    focus,
    maxMessages: deps.config.compactMaxMessages,
    messageChars: deps.config.compactMessageChars,
    maxOutputTokens: deps.config.compactMaxOutputTokens,
    signal: context.signal,
  });

  const first = older[0]!;
  const last = older[older.length - 1]!;
  const span = {
    from_timestamp: first.timestamp ?? null,
    to_timestamp: last.timestamp ?? null,
    from_message_id: messageIdOf(first),
    to_message_id: messageIdOf(last),
    message_count: older.length,
  };
  const content = { messages: older, span, created_at: createdAt, summary: summary.summary, key_points: summary.key_points, confidence: summary.confidence, model: summary.model, ids_seed: seed };
  const record: SpanRecord = {
    kind: 'conversation_span',
    artifact_id: spanId,
    created_at: createdAt,
    summary_message_id: `memory_summary:${spanId}`,
    ...span,
    compression_mode: mode,
    focus,
    created_by: context.actorId,
  };
  const added = await deps.spans.add(context.account, owner, record, content, {
    kind: 'conversation_span',
    compression_mode: mode,
    preserve_recent: String(preserve),
    ...(focus ? { focus } : {}),
  });
  return compactionResult(spanId, added.content, preserve, mode, focus);
}

/** The effect's result from the stored archive (so a repeat answers what the first made). */
function compactionResult(spanId: string, content: Record<string, unknown>, preserve: number, mode: string, focus: string | null): CompactResult {
  const span = (content.span ?? {}) as Record<string, unknown>;
  const createdAt = String(content.created_at ?? '');
  const summaryMessageId = `memory_summary:${spanId}`;
  const summaryMessage: ContextMessage = {
    role: 'system',
    content: `[CONVERSATION HISTORY SUMMARY span_id=${spanId}]: ${String(content.summary ?? '')}`,
    timestamp: createdAt,
    metadata: {
      message_id: summaryMessageId,
      kind: 'memory_summary',
      compression_mode: mode,
      preserve_recent: preserve,
      source_artifact_id: spanId,
      source_message_count: span.message_count ?? 0,
      source_from_timestamp: span.from_timestamp ?? null,
      source_to_timestamp: span.to_timestamp ?? null,
      source_from_message_id: span.from_message_id ?? null,
      source_to_message_id: span.to_message_id ?? null,
      ...(focus ? { focus } : {}),
    },
  };
  const result = executed('compact_memory', `Compacted ${String(span.message_count ?? 0)} messages into span_id=${spanId}.`, {
    llm_run_id: null,
    model: content.model ?? null,
    span_id: spanId,
    summary_message_id: summaryMessageId,
    preserve_recent: preserve,
    compression_mode: mode,
    focus,
    key_points: content.key_points ?? [],
    confidence: content.confidence ?? null,
  });
  return { ...result, summary_message: summaryMessage, preserve_recent: preserve, ids_seed: String(content.ids_seed ?? ''), stamped_at: createdAt };
}
