/**
 * The history window `most_recent_whole_turns` (reference gateway-surfaces §5.4–5.5): the newest whole
 * turns up to a token budget, never a message cut, with a labelled truncation line when older turns
 * were dropped.
 */
import { TOKEN_ESTIMATOR, type ReplayMessage } from './token-estimate.js';

export const WINDOW_POLICY = 'most_recent_whole_turns';

/** Turns read before the window is first judged; each further read is twice as large (32, 64, 128, ...). */
export const FIRST_READ_TURNS = 32;

/** One replayable turn: its user and assistant messages and their estimated tokens together. */
export interface ReplayTurn {
  messages: [ReplayMessage, ReplayMessage];
  tokens: number;
}

/** What the window kept and dropped (`_runtime.session_history` without `seeded`). */
export interface WindowReport {
  policy: typeof WINDOW_POLICY;
  max_tokens: number;
  token_estimator: string;
  replayed_messages: number;
  replayed_tokens: number;
  dropped_messages: number;
  dropped_tokens: number;
  /** False when reading stopped before the session's first turn: the dropped counts are then a lower bound. */
  dropped_counts_complete: boolean;
  oversize_turn_kept: boolean;
}

/**
 * Walks the session's turns newest first, read lazily: `null` is a turn that is not replayed (failed,
 * cancelled, still running, no prompt or answer) but was read. Keeps each turn while the kept total
 * stays within `maxTokens` (exactly the budget fits) and stops at the first that does not: the window
 * is contiguous. A newest turn above the budget is kept whole and alone. Reading goes on to the end of
 * the current read (32 turns, then 64, 128, ... in all) so the dropped counts cover what was read, and
 * stops there once something was dropped. At most `maxTurnsRead` turns are read in all (replayed or
 * not): a session of many turns that are not replayed never fills the window.
 */
export function windowTurns(turns: Iterable<ReplayTurn | null>, maxTokens: number, maxTurnsRead = Number.POSITIVE_INFINITY): { messages: ReplayMessage[]; report: WindowReport } {
  const kept: ReplayTurn[] = [];
  let keptTokens = 0;
  let full = false;
  let oversize = false;
  let droppedTurns = 0;
  let droppedTokens = 0;
  let stoppedEarly = false;
  const it = turns[Symbol.iterator]();
  try {
    for (let read = 0, readUntil = FIRST_READ_TURNS; ; read++) {
      if (read >= maxTurnsRead) {
        // The read bound: older turns stay unread (the counts are then a lower bound).
        stoppedEarly = !it.next().done;
        break;
      }
      if (read === readUntil) {
        // Only a peek at one more turn tells whether the read stopped before the session's beginning.
        if (full && droppedTurns > 0) {
          stoppedEarly = !it.next().done;
          break;
        }
        readUntil *= 2;
      }
      const next = it.next();
      if (next.done) break;
      const turn = next.value;
      if (!turn) continue;
      if (full) {
        droppedTurns++;
        droppedTokens += turn.tokens;
      } else if (kept.length === 0 && turn.tokens > maxTokens) {
        kept.push(turn);
        keptTokens += turn.tokens;
        oversize = true;
        full = true;
      } else if (keptTokens + turn.tokens <= maxTokens) {
        kept.push(turn);
        keptTokens += turn.tokens;
      } else {
        full = true;
        droppedTurns++;
        droppedTokens += turn.tokens;
      }
    }
  } finally {
    it.return?.();
  }
  const report: WindowReport = {
    policy: WINDOW_POLICY,
    max_tokens: maxTokens,
    token_estimator: TOKEN_ESTIMATOR,
    replayed_messages: kept.length * 2,
    replayed_tokens: keptTokens,
    dropped_messages: droppedTurns * 2,
    dropped_tokens: droppedTokens,
    dropped_counts_complete: !stoppedEarly,
    oversize_turn_kept: oversize,
  };
  const messages = kept.reverse().flatMap((t) => t.messages);
  // Older turns dropped, or left unread: the history starts mid-conversation.
  if ((report.dropped_messages > 0 || !report.dropped_counts_complete) && messages.length > 0) messages[0] = markTruncated(messages[0]!, report);
  return { messages, report };
}

/** The line put first in the oldest replayed message when older turns were dropped (surfaces §5.5, verbatim). */
export function truncationLine(report: WindowReport): string {
  const more = report.dropped_counts_complete ? '' : ' (and older turns not counted)';
  return `[#TRUNCATION: ${report.dropped_messages} earlier message(s) of this session (~${report.dropped_tokens} tokens)${more} were dropped from replay `
    + `by the history window (the most recent ${report.max_tokens} tokens, whole turns; abstractruntime.session_history); this history starts mid-conversation]`;
}

const ENVELOPE_END = '</runtime_metadata>';

/**
 * The oldest replayed message with the truncation line on its own first line (after a leading
 * `<runtime_metadata>` envelope), or as one more text part first in a content-part list; its
 * metadata says it was truncated and carries the window report. The line is not counted.
 */
function markTruncated(message: ReplayMessage, report: WindowReport): ReplayMessage {
  const line = truncationLine(report);
  let content: ReplayMessage['content'];
  if (Array.isArray(message.content)) content = [{ type: 'text', text: line }, ...message.content];
  else if (message.content.startsWith('<runtime_metadata>') && message.content.includes(ENVELOPE_END)) {
    const cut = message.content.indexOf(ENVELOPE_END) + ENVELOPE_END.length;
    const rest = message.content.slice(cut).replace(/^\r?\n/, '');
    content = `${message.content.slice(0, cut)}\n${line}\n${rest}`;
  } else content = `${line}\n${message.content}`;
  return { ...message, content, metadata: { ...message.metadata, replay_truncated: true, history_window: report } };
}
