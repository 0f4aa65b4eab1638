/**
 * Ledger record shapes (reference: flow-and-ledger-formats §4). A step record is stored as is;
 * its cursor (the count of records consumed, 1-based for the record itself) travels beside it.
 */
export type StepStatus = 'started' | 'completed' | 'waiting' | 'failed';

export interface Effect {
  type: string;
  payload: Record<string, unknown>;
  result_key: string | null;
}

export interface StepRecord {
  run_id: string;
  step_id: string;
  node_id: string;
  status: StepStatus;
  effect: Effect | null;
  result: Record<string, unknown> | null;
  error: string | null;
  started_at: string;
  ended_at: string | null;
  actor_id: string | null;
  session_id: string | null;
  attempt: number;
  idempotency_key: string | null;
  prev_hash: string | null;
  record_hash: string | null;
  signature: string | null;
}

/** What the ledger knows of a run: who owns it, where it sits in its tree, whether it is over. */
export interface RunMeta {
  run_id: string;
  account: string;
  parent_run_id: string | null;
  root_run_id: string;
  terminal: boolean;
  status: string;
}

export interface LedgerPage {
  items: Array<StepRecord & { cursor: number }>;
  next_after: number;
}

/** Live events that are not records (seed 000 §6): token deltas and their ends. */
export interface DeltaEvent {
  kind: 'llm.delta';
  run_id: string;
  root_run_id: string;
  parent_run_id: string | null;
  node_id: string;
  call_id: string;
  seq: number;
  text: string;
  channel: 'content' | 'reasoning';
  snapshot: boolean;
}

export interface DeltaEndEvent {
  kind: 'llm.delta_end';
  run_id: string;
  root_run_id: string;
  parent_run_id: string | null;
  node_id: string;
  call_id: string;
  seq: number;
  reason: 'completed' | 'failed' | 'cancelled' | 'unavailable';
  snapshot: boolean;
  detail?: string;
  synthetic?: boolean;
}

export type LiveEvent = DeltaEvent | DeltaEndEvent;
