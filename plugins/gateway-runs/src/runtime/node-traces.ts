/**
 * A run's node traces in the origin's shape (reference runtime-nodes §3.9: the ReAct child's
 * `vars._runtime.node_traces`, which the agent node hands out as `scratchpad.node_traces` and
 * `agent_trace_report` renders), made from the run's ledger: one step per effect's final record.
 */
import type { StepRecord } from '@keel/plugin-ledger';

/** The most steps kept per node (the origin keeps the last 100). */
export const MAX_TRACE_STEPS_PER_NODE = 100;

export interface TraceStep {
  ts: string;
  node_id: string;
  status: 'completed' | 'failed' | 'waiting';
  idempotency_key: string | null;
  reused_prior_result: boolean;
  effect: { type: string; payload: Record<string, unknown>; result_key: string | null };
  duration_ms?: number;
  result?: Record<string, unknown> | null;
  error?: string | null;
  wait?: Record<string, unknown> | null;
}

export interface NodeTrace {
  node_id: string;
  steps: TraceStep[];
}

/** `{<node>: {node_id, steps}}` from the run's records in ledger order; `started` records only time their step. */
export function nodeTracesFromLedger(records: readonly StepRecord[]): Record<string, NodeTrace> {
  const traces = new Map<string, NodeTrace>();
  for (const record of records) {
    if (record.status === 'started' || !record.effect || !record.node_id) continue;
    const step: TraceStep = {
      ts: record.ended_at ?? record.started_at,
      node_id: record.node_id,
      status: record.status,
      idempotency_key: record.idempotency_key,
      reused_prior_result: false,
      effect: { type: record.effect.type, payload: record.effect.payload, result_key: record.effect.result_key },
    };
    const duration = record.ended_at ? Date.parse(record.ended_at) - Date.parse(record.started_at) : NaN;
    if (Number.isFinite(duration) && duration >= 0) step.duration_ms = duration;
    if (record.status === 'failed') step.error = record.error;
    else if (record.status === 'waiting') step.wait = record.result;
    else step.result = record.result;
    let trace = traces.get(record.node_id);
    if (!trace) traces.set(record.node_id, (trace = { node_id: record.node_id, steps: [] }));
    trace.steps.push(step);
    if (trace.steps.length > MAX_TRACE_STEPS_PER_NODE) trace.steps.shift();
  }
  // fromEntries defines own keys: a node named `__proto__` stays a key.
  return Object.fromEntries(traces);
}
