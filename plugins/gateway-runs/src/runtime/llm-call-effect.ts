/**
 * The `llm_call` effect (reference runtime-nodes §5.1): one chat call through the inference
 * service, bounded by an output-token limit, with the truncation retries and the structured-output
 * fallback inside the one effect; token deltas stream to the live bus and their `llm.delta_end`
 * frame is owed until the effect's durable record is written (`pendingEnds`).
 */
import type { ChatMessage, InferenceService } from '@keel/plugin-inference';
import type { LiveBus } from '@keel/plugin-ledger';
import type { LlmCallPayload } from '../flow/effect-requests.js';
import { normalizeResponseSchema } from '../flow/response-schema.js';
import type { RunSignalSource } from './collaborators.js';
import type { EffectOutcome } from './effect-executor.js';
import { DEFAULT_LLM_OUTPUT, grown, isTruncated, readAnswer, TruncatedOutputError, truncationPlan, type LlmOutputSettings } from './llm-output.js';
import type { RunState } from './run-state.js';

/** Whether token deltas are on for a run's tree. */
export interface StreamingSwitch {
  streams(run: RunState): boolean;
}

export interface LlmCallDeps {
  inference: InferenceService;
  hub: LiveBus;
  signals: RunSignalSource;
  streaming: StreamingSwitch;
  /** The output-token bounds of LLM calls (`llm.*`). */
  llmOutput?: LlmOutputSettings;
}

export class LlmCallEffect {
  /** `pendingEnds`: the executor's frames owed once a step's durable record is written, by step id. */
  constructor(private readonly deps: LlmCallDeps, private readonly pendingEnds: Map<string, (cursor: number) => void>) {}

  async perform(run: RunState, nodeId: string, p: LlmCallPayload, stepId: string): Promise<EffectOutcome> {
    // Roles go to the engine as the flow wrote them (the inference service judges them).
    // A system_prompt beside messages (the agent's format-only call) goes first.
    const system = p.system_prompt ? [{ role: 'system', content: p.system_prompt }] : [];
    const messages = [...system, ...(p.messages ?? [{ role: 'user', content: p.prompt ?? '' }])] as ChatMessage[];
    const params = p.params;
    const model = p.provider && p.model ? `${p.provider}/${p.model}` : undefined;
    const signal = this.deps.signals.signalOf(run.run_id);
    const nodeStreamOff = p.stream === false;
    const streaming = this.deps.streaming.streams(run) && !nodeStreamOff;
    let seq = 0;
    const base = { run_id: run.run_id, root_run_id: run.root_run_id, parent_run_id: run.parent_run_id, node_id: nodeId, call_id: stepId };
    const started = performance.now();
    let schema = p.response_schema ? normalizeSchemaOrFail(p.response_schema) : undefined;
    let fallback: { used: true; error: string } | null = null;
    // The answer is read as a structured one even when the fallback asked without the schema.
    const asked = schema;
    const plan = truncationPlan(p, run.vars._limits, this.deps.llmOutput ?? DEFAULT_LLM_OUTPUT);
    const attempted: number[] = [];
    try {
      // Truncation retries happen inside this one effect: each asks again with a larger output bound.
      for (let maxTokens = plan.first; ; maxTokens = grown(maxTokens, plan.cap)) {
        attempted.push(maxTokens);
        const ask = () => this.deps.inference.chat(run.account, {
          model,
          messages,
          params: { temperature: params.temperature ?? 0.7, ...(params.seed !== undefined ? { seed: params.seed } : {}), ...(schema ? { jsonSchema: schema } : {}), maxTokens },
        }, {
          signal,
          ...(streaming ? { onDelta: (text: string, channel: 'content' | 'reasoning') => this.deps.hub.publishDelta({ kind: 'llm.delta', ...base, seq: ++seq, text, channel, snapshot: false }) } : {}),
        });
        let out: Awaited<ReturnType<typeof ask>>;
        try {
          out = await ask();
        } catch (err) {
          // structured_output_fallback: a structured generation that failed as such is asked once more without the schema.
          if (!schema || !p.structured_output_fallback || fallback || !isStructuredFailure(err)) throw err;
          fallback = { used: true, error: (err as Error).message };
          schema = undefined;
          out = await ask();
        }
        if (out.finishReason === 'cancelled') {
          this.pendingEnds.set(stepId, (cursor: number) => this.endDeltas(streaming, base, ++seq, 'cancelled', cursor));
          return { status: 'failed', error: 'Cancelled: the LLM call was stopped in flight', cancelled: true, stoppedInFlight: true, partial: out.text };
        }
        const truncated = isTruncated(out.finishReason);
        if (truncated && !plan.allowTruncation) {
          if (plan.retry && attempted.length < plan.attempts) continue;
          throw new TruncatedOutputError(out.finishReason, attempted);
        }
        const answer = readAnswer(out.text, asked);
        const metadata: Record<string, unknown> = { ...answer.metadata, ...(fallback ? { _structured_output_fallback: fallback } : {}) };
        if (attempted.length > 1 || truncated) metadata._truncation = { attempts: attempted.length, max_output_tokens: attempted, resolved: !truncated };
        const result = {
          content: answer.content,
          reasoning: null,
          data: answer.data,
          tool_calls: null,
          usage: out.usage,
          model: out.model,
          provider: out.provider,
          finish_reason: out.finishReason,
          metadata,
          trace_id: null,
          gen_time: Math.round(performance.now() - started),
          ttft_ms: out.firstTokenMs === null ? null : Math.round(out.firstTokenMs),
        };
        // The end frame must follow the durable record: the runtime appends it, then calls `afterRecord`.
        if (nodeStreamOff && this.deps.streaming.streams(run)) {
          // The run streams but this node turned it off: say so instead of sending deltas (§6 rule 1, 5).
          this.pendingEnds.set(stepId, (cursor: number) => this.deps.hub.publishEnd({ kind: 'llm.delta_end', ...base, seq: 1, reason: 'unavailable', detail: 'node_stream_off', snapshot: false }, { run_id: base.run_id, cursor }));
        } else {
          this.pendingEnds.set(stepId, (cursor: number) => this.endDeltas(streaming, base, ++seq, 'completed', cursor));
        }
        return { status: 'completed', result };
      }
    } catch (err) {
      const reason = signal.aborted ? 'cancelled' : 'failed';
      this.pendingEnds.set(stepId, (cursor: number) => this.endDeltas(streaming, base, ++seq, reason, cursor));
      throw err;
    }
  }

  private endDeltas(streaming: boolean, base: { run_id: string; root_run_id: string; parent_run_id: string | null; node_id: string; call_id: string }, seq: number, reason: 'completed' | 'failed' | 'cancelled', afterCursor?: number): void {
    if (!streaming) return;
    const gate = afterCursor === undefined ? undefined : { run_id: base.run_id, cursor: afterCursor };
    this.deps.hub.publishEnd({ kind: 'llm.delta_end', ...base, seq, reason, snapshot: false }, gate);
  }
}

/** An error of structured generation itself (the engine could not use the schema, or the answer failed validation). */
function isStructuredFailure(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'invalid_schema' || /validation errors? for|structured output generation failed/i.test(String((err as Error | null)?.message ?? ''));
}

/** The schema the call sends; one the origin would refuse fails the effect at once (a retry would be refused again). */
function normalizeSchemaOrFail(value: unknown): Record<string, unknown> {
  try {
    return normalizeResponseSchema(value);
  } catch (err) {
    throw Object.assign(new Error((err as Error).message), { code: 'invalid_response_schema' });
  }
}
