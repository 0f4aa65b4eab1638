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
  const content = { messages: older, span, created_at: createdAt, summary: summary.summary };
  const owner = context.runId;
  const spanId = spanIdOf(owner, content);
  const summaryMessageId = `memory_summary:${spanId}`;
  const record: SpanRecord = {
    kind: 'conversation_span',
    artifact_id: spanId,
    created_at: createdAt,
    summary_message_id: summaryMessageId,
    ...span,
    compression_mode: mode,
    focus,
    created_by: context.actorId,
  };
  await deps.spans.add(context.account, owner, record, content, {
    kind: 'conversation_span',
    compression_mode: mode,
    preserve_recent: String(preserve),
    ...(focus ? { focus } : {}),
  });
  const summaryMessage: ContextMessage = {
    role: 'system',
    content: `[CONVERSATION HISTORY SUMMARY span_id=${spanId}]: ${summary.summary}`,
    timestamp: createdAt,
    metadata: {
      message_id: summaryMessageId,
      kind: 'memory_summary',
      compression_mode: mode,
      preserve_recent: preserve,
      source_artifact_id: spanId,
      source_message_count: older.length,
      source_from_timestamp: span.from_timestamp,
      source_to_timestamp: span.to_timestamp,
      source_from_message_id: span.from_message_id,
      source_to_message_id: span.to_message_id,
      ...(focus ? { focus } : {}),
    },
  };
  const result: CompactResult = executed('compact_memory', `Compacted ${older.length} messages into span_id=${spanId}.`, {
    llm_run_id: null,
    model: summary.model,
    span_id: spanId,
    summary_message_id: summaryMessageId,
    preserve_recent: preserve,
    compression_mode: mode,
    focus,
    key_points: summary.key_points,
    confidence: summary.confidence,
  });
  return { ...result, summary_message: summaryMessage, preserve_recent: preserve, ids_seed: seed, stamped_at: createdAt };
}
