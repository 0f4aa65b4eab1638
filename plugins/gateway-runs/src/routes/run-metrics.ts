/**
 * `include_metrics` totals of a run and all its sub-runs, from their ledgers (reference §4.3):
 * `steps` = completed records, `llm_calls` = completed llm_call records, `tool_calls` = tool calls
 * of completed tool_calls records, `tokens_total` = `usage.total_tokens` of completed llm_calls.
 */
import type { LedgerStore } from '@keel/plugin-ledger';
import type { RunStore } from '../runtime/run-store.js';

export interface RunMetrics {
  steps: number;
  llm_calls: number;
  tool_calls: number;
  tokens_total: number;
}

export function runMetrics(runId: string, runs: RunStore, ledger: LedgerStore): RunMetrics {
  const totals: RunMetrics = { steps: 0, llm_calls: 0, tool_calls: 0, tokens_total: 0 };
  const queue = [runId];
  while (queue.length) {
    const id = queue.shift()!;
    for (let after = 0; ; ) {
      const page = ledger.page(id, after, 2000);
      for (const record of page.items) {
        if (record.status !== 'completed') continue;
        totals.steps++;
        if (record.effect?.type === 'llm_call') {
          totals.llm_calls++;
          const usage = (record.result?.usage ?? null) as { total_tokens?: number } | null;
          totals.tokens_total += usage?.total_tokens ?? 0;
        }
        if (record.effect?.type === 'tool_calls') totals.tool_calls += ((record.effect.payload.tool_calls as unknown[]) ?? []).length;
      }
      if (page.items.length < 2000) break;
      after = page.next_after;
    }
    queue.push(...runs.children(id).map((c) => c.run_id));
  }
  return totals;
}
