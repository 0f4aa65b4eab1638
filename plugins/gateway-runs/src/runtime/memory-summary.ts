/**
 * The memory compaction child run (reference §6.2 `compact_memory`): one durable `llm_call` on node
 * `summarize` that asks the run's model (its `_runtime.provider/model`, else the default model) to
 * summarise the older messages of the parent's memory. Its output `{summary, compacted}` is what
 * the parent's memory is rewritten with.
 */
import type { BuiltinEffect } from '../flow/effect-requests.js';
import type { MemoryMessage } from './conversation-memory.js';
import type { RunState } from './run-state.js';

/** The `builtin` of a compaction child run, and its `workflow_id`. */
export const MEMORY_COMPACTOR = 'memory_compactor';
export const MEMORY_COMPACTION_WORKFLOW = 'memory_compaction';

const SYSTEM =
  'You compress conversation memory. Summarise the conversation you are given so that the summary can replace it: ' +
  'keep facts, names, numbers, decisions, open questions and what the user asked for. Be brief; no preamble.';
/** Long messages are cut in the transcript so the request fits a model's context. */
const MAX_MESSAGE_CHARS = 4000;

export interface CompactionJob {
  messages: MemoryMessage[];
  parent_run_id: string;
  reason: string | null;
}

export type CompactionStep = { kind: 'effect'; node: string; effect: BuiltinEffect } | { kind: 'complete'; output: Record<string, unknown> };

export function compactionStep(run: RunState): CompactionStep {
  const vars = run.vars;
  const job = vars._compaction as CompactionJob;
  const runtime = (vars._runtime ?? {}) as Record<string, unknown>;
  const effects = (((vars._temp ??= {}) as { effects?: Record<string, unknown> }).effects ??= {});

  if ('summarize' in effects) {
    const result = (effects.summarize ?? {}) as { content?: string; model?: string; provider?: string };
    delete effects.summarize;
    const summary = String(result.content ?? '').trim();
    if (!summary) return { kind: 'complete', output: { success: false, error: 'The model returned an empty summary.', compacted: 0 } };
    return { kind: 'complete', output: { success: true, summary, compacted: job.messages.length, model: result.model ?? null, provider: result.provider ?? null } };
  }
  return {
    kind: 'effect',
    node: 'summarize',
    effect: {
      type: 'llm_call',
      payload: {
        type: 'llm_call',
        provider: String(runtime.provider ?? ''),
        model: String(runtime.model ?? ''),
        messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: transcript(job.messages) }],
        params: { temperature: 0 },
        include_context: false,
        tools: [],
      },
    },
  };
}

function transcript(messages: MemoryMessage[]): string {
  return messages
    .map((m) => {
      const text = String(m.content ?? '');
      const cut = text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text;
      return `${m.kind === 'memory_summary' ? 'earlier summary' : m.role}: ${cut}`;
    })
    .join('\n');
}
