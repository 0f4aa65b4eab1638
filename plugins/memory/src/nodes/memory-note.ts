/**
 * `memory_note` ("Memorize", reference runtime-nodes §8.2): stores a note span in the scope owner's
 * memory; with `keep_in_context` the note also enters the run's context as a `[MEMORY NOTE]` system
 * message (made from the recorded result, so a replay adds the same message).
 */
import { effectNode, type EffectContext } from '@keel/plugin-gateway-runs';
import { messagesOf, noteMessage, setMessages, type ContextMessage } from '../context-messages.js';
import { coerceBool, executed, given, listOf, scopeRunOf, textOf, type MemoryDeps } from '../memory-deps.js';
import { isoNow, pythonJson } from '../python-text.js';
import { ownerOf, parseScope, unknownScope, WRITE_SCOPES } from '../scopes.js';
import { spanIdOf } from '../span-ids.js';
import type { SpanRecord } from '../span-store.js';
import { cleanTags } from '../tags.js';

type NotePayload = { note: string; tags: Record<string, unknown>; sources?: unknown; location?: string; scope?: string; keep_in_context?: true };
type NoteResult = ReturnType<typeof executed> & { kept_message?: ContextMessage };

const PREVIEW_CHARS = 160;
const CUT = '… (truncated)';

export function notePreview(note: string): string {
  return note.length <= PREVIEW_CHARS ? note : `${note.slice(0, PREVIEW_CHARS - CUT.length)}${CUT}`;
}

export function memoryNoteNode(deps: MemoryDeps) {
  return effectNode<NotePayload, NoteResult>({
    // Writes and reads Keel's own storage only: no commit is needed before it (effect-durability.ts).
    sideEffects: 'local',
    payload: (inputs, node) => {
      const config = (node.data as { effectConfig?: Record<string, unknown> }).effectConfig ?? {};
      const keep = given(inputs.keep_in_context) ? coerceBool(inputs.keep_in_context) : coerceBool(config.keep_in_context ?? config.keepInContext);
      const tags = inputs.tags && typeof inputs.tags === 'object' && !Array.isArray(inputs.tags) ? (inputs.tags as Record<string, unknown>) : {};
      return {
        note: textOf(inputs.content ?? inputs.note),
        tags,
        ...(given(inputs.sources) ? { sources: inputs.sources } : {}),
        ...(given(inputs.location) && textOf(inputs.location) ? { location: textOf(inputs.location) } : {}),
        ...(given(inputs.scope) && textOf(inputs.scope) ? { scope: textOf(inputs.scope) } : {}),
        ...(keep ? { keep_in_context: true as const } : {}),
      };
    },
    perform: (payload, context) => remember(deps, payload, context),
    outputs: (result) => ({ note_id: (result.results[0]?.meta as { span_id?: string } | undefined)?.span_id ?? null, raw: result }),
    applyToRun: (result, run) => {
      if (result.kept_message) setMessages(run.vars, [...messagesOf(run.vars), result.kept_message]);
    },
  });
}

async function remember(deps: MemoryDeps, payload: NotePayload, context: EffectContext): Promise<NoteResult> {
  const note = typeof payload.note === 'string' ? payload.note : '';
  if (!note.trim()) throw new Error('MEMORY_NOTE requires payload.note (non-empty string)');
  if (note.length > deps.config.maxNoteChars) throw new Error(`MEMORY_NOTE note has ${note.length} characters; at most ${deps.config.maxNoteChars} (the memory plugin's maxNoteChars).`);
  const scope = parseScope(payload.scope, WRITE_SCOPES);
  if (!scope) throw unknownScope(payload.scope);
  const tags = cleanTags(payload.tags, deps.config, 'MEMORY_NOTE');
  const owner = ownerOf(scope, scopeRunOf(context));
  const createdAt = isoNow();

  const given = sourcesOf(payload.sources);
  const content: Record<string, unknown> = {
    note,
    sources: { run_id: given.run_id ?? context.runId, span_ids: given.span_ids, message_ids: given.message_ids },
    created_at: createdAt,
    ...(payload.location ? { location: payload.location } : {}),
    actor_id: context.actorId,
    ...(context.sessionId ? { session_id: context.sessionId } : {}),
  };
  const { created_at: _at, ...identity } = content;
  const spanId = spanIdOf(owner, { ...identity, writer: [context.runId, context.nodeId], tags });
  const preview = notePreview(note);
  const record: SpanRecord = {
    kind: 'memory_note',
    artifact_id: spanId,
    created_at: createdAt,
    from_timestamp: createdAt,
    to_timestamp: createdAt,
    message_count: 0,
    note_preview: preview,
    ...(payload.location ? { location: payload.location } : {}),
    ...(Object.keys(tags).length ? { tags } : {}),
    ...(given.span_ids.length || given.message_ids.length ? { sources: { run_id: given.run_id ?? context.runId, span_ids: given.span_ids, message_ids: given.message_ids } } : {}),
    created_by: context.actorId,
  };
  // Performed again with the same payload: the span stored the first time (and its time) is the answer.
  const stored = (await deps.spans.add(context.account, owner, record, content, { kind: 'memory_note', ...tags })).record;
  const kept = payload.keep_in_context === true;
  const result: NoteResult = executed('remember_note', `Stored memory_note span_id=${spanId} tags=${pythonJson(tags)}`, {
    span_id: spanId,
    created_at: stored.created_at,
    note_preview: preview,
    ...(kept ? { kept_in_context: true } : {}),
  });
  if (kept) result.kept_message = noteMessage(spanId, note, stored.created_at);
  return result;
}

/** `sources` as span ids and message ids (a list counts as span ids), and an optional run id. */
function sourcesOf(value: unknown): { run_id: string | null; span_ids: string[]; message_ids: string[] } {
  const strings = (v: unknown) => listOf(v).filter((x): x is string => typeof x === 'string' && x.length > 0);
  if (Array.isArray(value) || typeof value === 'string') return { run_id: null, span_ids: strings(value), message_ids: [] };
  if (!value || typeof value !== 'object') return { run_id: null, span_ids: [], message_ids: [] };
  const s = value as Record<string, unknown>;
  return { run_id: typeof s.run_id === 'string' && s.run_id ? s.run_id : null, span_ids: strings(s.span_ids), message_ids: strings(s.message_ids) };
}
