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
/** Fields every live frame of an LLM call carries. */
interface CallFrame {
  run_id: string;
  root_run_id: string;
  parent_run_id: string | null;
  node_id: string;
  /** The call's `step_id` in the ledger. */
  call_id: string;
  /** Counts the call's frames: its deltas, then its end. */
  seq: number;
  snapshot: boolean;
}

export interface DeltaEvent extends CallFrame {
  kind: 'llm.delta';
  text: string;
  channel: 'content' | 'reasoning';
}

export interface DeltaEndEvent extends CallFrame {
  kind: 'llm.delta_end';
  reason: 'completed' | 'failed' | 'cancelled' | 'unavailable';
  detail?: string;
  synthetic?: boolean;
}

export type LiveEvent = DeltaEvent | DeltaEndEvent;
