/**
 * The transcript a discussion is seeded with once (reference gateway-surfaces §3.8, §5.5): the
 * automation's conversation up to the occurrence discussed, one user/assistant pair per finished
 * occurrence (a failed one answers with its failure's message), oldest first, the newest whole pairs
 * within the history window (gateway-runs' `windowTurns`, the same estimate and truncation line as
 * session replay). The first user message starts with a line naming the automation, the folder it
 * reads read-only and the folder it writes in.
 */
import { estimateMessageTokens, windowTurns, type ReplayMessage, type ReplayTurn, type WindowReport } from '@keel/plugin-gateway-runs';
import type { OccurrenceRecord } from '../model.js';

/** The window of a discussion seed when the automation names none (`context.growing.max_tokens` of a growing one wins). */
export const DEFAULT_DISCUSSION_MAX_TOKENS = 50_000;

export interface DiscussionSubject {
  automation_id: string;
  title: string;
  /** The occurrence discussed: pairs of later occurrences are left out. */
  occurrence_index: number;
  /** The automation's folder as the discussion reads it (read-only), as the run may be told it; null when the occurrence had none. */
  mounted_workspace: string | null;
  /** The discussion's own folder (writable), as the run may be told it; null when not known yet. */
  workspace_root: string | null;
}

export interface DiscussionTranscript {
  /** The messages, oldest first; empty when no occurrence up to the one discussed has finished. */
  messages: ReplayMessage[];
  /** The line naming the automation and its folders: first in the first user message, or (no messages) first in the prompt. */
  summary_line: string;
  report: WindowReport;
}

/** The line the discussion's first user message starts with. */
export function discussionSummaryLine(subject: DiscussionSubject): string {
  const mount = subject.mounted_workspace ? `its folder ${subject.mounted_workspace} is mounted read-only` : 'it has no folder to mount';
  const own = subject.workspace_root ? `; this discussion writes in its own folder ${subject.workspace_root}` : '';
  return `[Discussion of automation "${subject.title}" (${subject.automation_id}), occurrence ${subject.occurrence_index}: the automation's conversation follows, one turn per finished occurrence; ${mount}${own}]`;
}

/**
 * The occurrence's pair, or null when it is not part of the transcript: not finished (admitted,
 * running, waiting, backoff), cancelled or skipped (no answer and no failure), or without a user
 * turn or an answer (blank after trimming), as session replay leaves such turns out.
 */
export function occurrenceTurn(occurrence: OccurrenceRecord): ReplayTurn | null {
  let answer: string;
  if (occurrence.status === 'completed') answer = occurrence.answer;
  else if (occurrence.status === 'failed') answer = occurrence.failure?.message?.trim() ? occurrence.failure.message : 'failed';
  else return null;
  if (!occurrence.user_turn.trim() || !answer.trim()) return null;
  const metadata = {
    kind: 'session_turn',
    discussion_seed: true,
    automation_id: occurrence.automation_id,
    occurrence_index: occurrence.index,
    occurrence_status: occurrence.status,
    run_id: occurrence.run_id,
    ts: occurrence.finished_at ?? occurrence.fired_at,
  };
  const user: ReplayMessage = { role: 'user', content: occurrence.user_turn, metadata };
  const assistant: ReplayMessage = { role: 'assistant', content: answer, metadata: { ...metadata } };
  return { messages: [user, assistant], tokens: estimateMessageTokens(user) + estimateMessageTokens(assistant) };
}

/**
 * Builds the seed from the automation's occurrences, NEWEST FIRST (read lazily: the window stops the
 * read, so a long history is not read whole); those after the one discussed are skipped. The summary
 * line is put first in the first message (before a truncation line) and is not counted against the
 * window, as the truncation line is not.
 */
export function discussionTranscript(newestFirst: Iterable<OccurrenceRecord>, subject: DiscussionSubject, maxTokens = DEFAULT_DISCUSSION_MAX_TOKENS): DiscussionTranscript {
  const { messages, report } = windowTurns(turnsUpTo(newestFirst, subject.occurrence_index), maxTokens);
  const summary_line = discussionSummaryLine(subject);
  if (messages.length > 0) {
    const first = messages[0]!;
    const content = Array.isArray(first.content) ? [{ type: 'text', text: summary_line }, ...first.content] : `${summary_line}\n${first.content}`;
    messages[0] = { ...first, content };
  }
  return { messages, summary_line, report };
}

function* turnsUpTo(newestFirst: Iterable<OccurrenceRecord>, index: number): Generator<ReplayTurn | null> {
  for (const occurrence of newestFirst) if (occurrence.index <= index) yield occurrenceTurn(occurrence);
}
