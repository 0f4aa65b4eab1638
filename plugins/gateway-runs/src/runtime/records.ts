/** Builds ledger records with every field present, as the reference stores them. */
import { createHash, hash, randomUUID } from 'node:crypto';
import type { Effect, StepRecord, StepStatus } from '@keel/plugin-ledger';
import type { RunState } from './run-state.js';

export function stepRecord(run: RunState, nodeId: string, status: StepStatus, fields: Partial<StepRecord> = {}): StepRecord {
  const now = new Date().toISOString().replace('Z', '+00:00');
  return {
    run_id: run.run_id,
    step_id: randomUUID(),
    node_id: nodeId,
    status,
    effect: null,
    result: null,
    error: null,
    started_at: now,
    ended_at: status === 'started' ? null : now,
    actor_id: run.actor_id,
    session_id: run.session_id,
    attempt: 1,
    idempotency_key: null,
    prev_hash: null,
    record_hash: null,
    signature: null,
    ...fields,
  };
}

/** The final record of an attempt: same step id as its `started` record. */
export function finishRecord(started: StepRecord, status: StepStatus, fields: Partial<StepRecord>): StepRecord {
  return { ...started, status, ended_at: new Date().toISOString().replace('Z', '+00:00'), ...fields };
}

/** Stable per effect execution: the run, the node, the effect type and the run's effect counter. */
export function idempotencyKey(run: RunState, nodeId: string, effect: Pick<Effect, 'type'>): string {
  const canonical = JSON.stringify({ effect_index: run.effect_index, effect_type: effect.type, node_id: nodeId, run_id: run.run_id });
  // One-shot hash: the same digest as createHash's, without a Hash object per effect (a third of the time).
  return hash('sha256', canonical, 'hex').slice(0, 32);
}

/** A child run id derived from its parent's effect key, so a replay finds the child it already made. */
export function childRunId(key: string): string {
  const h = createHash('sha256').update(`child:${key}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
