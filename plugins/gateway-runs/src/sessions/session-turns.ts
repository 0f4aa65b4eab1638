/**
 * What a session's turn is for history replay (reference gateway-surfaces §5.2): a root run of the
 * session, except scheduled wrappers, automation controllers, internal (`__*`) workflows and draft
 * tests; and which turns are replayed: COMPLETED ones with a prompt and an answer, both non-empty
 * after trimming, as one user/assistant pair. Steering guidance (the run's inbox) is never part of it.
 */
import type { RunState } from '../runtime/run-state.js';
import { estimateMessageTokens, textOfPart, type ReplayMessage } from './token-estimate.js';
import type { ReplayTurn } from './history-window.js';

/** Whether a root run of the session counts as one of its turns (replayed or not). */
export function countsAsTurn(run: RunState): boolean {
  if (run.parent_run_id !== null) return false;
  if (run.workflow_id.startsWith('scheduled:') || run.builtin === 'scheduler') return false;
  // An automation's controller is no turn; its occurrences are (a growing automation's occurrences
  // run in the automation session with session_kind 'automation' and role 'occurrence': its history).
  if (run.session_kind === 'automation' && run.role !== 'occurrence') return false;
  if (run.workflow_id.startsWith('__') || run.bundle_id.startsWith('__') || run.flow_id.startsWith('__')) return false;
  return !run.bundle_version.startsWith('draft.');
}

/** The turn's user/assistant pair with its estimated tokens, or null when it is not replayed. */
export function replayableTurn(run: RunState): ReplayTurn | null {
  if (run.status !== 'completed') return null;
  const prompt = replayContent(run.input_data.prompt);
  const answer = answerOf(run.output);
  if (prompt === null || answer === null) return null;
  const metadata = { kind: 'session_turn', run_id: run.run_id, ts: run.created_at };
  const user: ReplayMessage = { role: 'user', content: prompt, metadata };
  const assistant: ReplayMessage = { role: 'assistant', content: answer, metadata: { ...metadata } };
  return { messages: [user, assistant], tokens: estimateMessageTokens(user) + estimateMessageTokens(assistant) };
}

/** `output.response`, else `output.answer`, else a string `output.result`: the first that is a non-empty answer. */
function answerOf(output: Record<string, unknown> | null): string | unknown[] | null {
  if (!output) return null;
  for (const key of ['response', 'answer']) {
    const content = replayContent(output[key]);
    if (content !== null) return content;
  }
  return typeof output.result === 'string' ? replayContent(output.result) : null;
}

/**
 * A message content as stored (never trimmed: replay keeps the verbatim text): a string that is not
 * blank, or a content-part list (strings and `{type, ...}` objects) with a non-blank text part or a
 * media part. Anything else is no content.
 */
function replayContent(value: unknown): string | unknown[] | null {
  if (typeof value === 'string') return value.trim() ? value : null;
  if (!Array.isArray(value) || value.length === 0) return null;
  let substance = false;
  for (const part of value) {
    const isPart = typeof part === 'string' || (part !== null && typeof part === 'object' && !Array.isArray(part) && typeof (part as { type?: unknown }).type === 'string');
    if (!isPart) return null;
    const text = textOfPart(part);
    // A media part (image, audio, file) is content whatever its text.
    substance ||= text === undefined || text.trim() !== '';
  }
  return substance ? value : null;
}
