/**
 * Step records shaped like the ones a run writes (plugins/gateway-runs EffectExecutor): an effect
 * attempt is a `started` record (effect payload, idempotency key) then the `completed` record of
 * the same step (its result). Every field is present, as the reference stores them.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { StepRecord } from '@keel/plugin-ledger';

const PROMPT = 'Summarise the following notes for the weekly report, in three short bullet points, keeping names and dates: '
  + 'the ingestion job was moved to the new queue on Monday; latency went down by a third.';
const RESPONSE = '- Monday: the ingestion job moved to the new queue.\n- Latency dropped by about a third.\n- No incidents reported this week.';

function isoNow(): string {
  return new Date().toISOString().replace('Z', '+00:00');
}

/**
 * The n-th record (0-based) a run writes: even n a `started` record, odd n the `completed` record
 * of the same step. `extra` lands in the result of completed records (the stream benchmark's clock).
 */
export class RunRecords {
  private stepId = '';
  private key = '';
  private node = '';

  constructor(readonly runId: string) {}

  next(n: number, extra: Record<string, unknown> = {}): StepRecord {
    const now = isoNow();
    if (n % 2 === 0) {
      this.stepId = randomUUID();
      this.node = `node-${(n >> 1) % 12}`;
      this.key = createHash('sha256').update(`${this.runId}:${n}`).digest('hex').slice(0, 32);
    }
    const effect = {
      type: 'llm_call',
      payload: { prompt: PROMPT, system_prompt: null, provider: 'llama', model: 'tiny', params: { temperature: 0, max_output_tokens: 256 } },
      result_key: `_temp.effects.${this.node}`,
    };
    const started = n % 2 === 0;
    return {
      run_id: this.runId,
      step_id: this.stepId,
      node_id: this.node,
      status: started ? 'started' : 'completed',
      effect,
      result: started ? (Object.keys(extra).length ? { ...extra } : null) : { content: RESPONSE, finish_reason: 'stop', usage: { prompt_tokens: 61, completion_tokens: 38 }, ...extra },
      error: null,
      started_at: now,
      ended_at: started ? null : now,
      actor_id: 'admin',
      session_id: null,
      attempt: 1,
      idempotency_key: this.key,
      prev_hash: null,
      record_hash: null,
      signature: null,
    };
  }
}
