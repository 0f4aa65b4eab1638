/**
 * The recall text of `memory_query` (reference runtime-nodes §8.3 `rendered`): a header, then per
 * span a blank line, `[i] span_id=… kind=… msgs=… created_at=…` and indented detail lines; a
 * conversation span lists its archived messages until the message budget is spent.
 */
import type { ContextMessage } from './context-messages.js';
import type { SpanArtifact, SpanRecord } from './span-store.js';

export const NO_MATCH = 'No matching memory spans.';
const HEADER = 'Recalled memory spans (provenance-preserving):';
const MAX_SOURCE_IDS = 12;

export interface RenderedSpan {
  record: SpanRecord;
  artifact: SpanArtifact | undefined;
  /** The text of the span's summary message, when known. */
  summary: string | null;
}

export function renderRecall(spans: RenderedSpan[], maxMessages: number, warnings: string[]): string {
  const prefix = warnings.length ? `[recall warnings]\n${warnings.map((w) => `- ${w}`).join('\n')}\n\n` : '';
  if (spans.length === 0) return `${prefix}${NO_MATCH}`;
  let budget = maxMessages;
  const blocks = spans.map((span, i) => {
    const { record, artifact } = span;
    const lines = [`[${i + 1}] span_id=${record.artifact_id} kind=${record.kind} msgs=${record.message_count ? record.message_count : ''} created_at=${record.created_at}`];
    const detail = (label: string, value: unknown) => {
      if (value !== undefined && value !== null && value !== '') lines.push(`    ${label}: ${String(value)}`);
    };
    if (record.from_timestamp || record.to_timestamp) detail('time_range', `${record.from_timestamp ?? ''} .. ${record.to_timestamp ?? ''}`);
    detail('created_by', record.created_by);
    detail('location', record.location);
    const tags = (record.tags ?? {}) as Record<string, unknown>;
    const keys = Object.keys(tags).sort();
    if (keys.length) detail('tags', keys.map((k) => `${k}=${String(tags[k])}`).join(', '));
    detail('summary', span.summary);
    const content = artifact?.content ?? {};
    if (record.kind === 'memory_note') {
      detail('note', content.note);
      const sources = (content.sources ?? {}) as { run_id?: string; span_ids?: string[]; message_ids?: string[] };
      detail('sources.run_id', sources.run_id);
      if (sources.span_ids?.length) detail('sources.span_ids', sources.span_ids.slice(0, MAX_SOURCE_IDS).join(', '));
      if (sources.message_ids?.length) detail('sources.message_ids', sources.message_ids.slice(0, MAX_SOURCE_IDS).join(', '));
    }
    const messages = Array.isArray(content.messages) ? (content.messages as ContextMessage[]) : [];
    if (record.kind === 'conversation_span' && messages.length) {
      const shown = messages.slice(0, Math.max(0, budget));
      budget -= shown.length;
      for (const m of shown) lines.push(`    - ${m.timestamp ?? ''} ${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);
      if (shown.length < messages.length) lines.push(`    (remaining ${messages.length - shown.length} messages omitted by max_messages=${maxMessages})`);
    }
    return lines.join('\n');
  });
  return `${prefix}${HEADER}\n\n${blocks.join('\n\n')}`;
}
