/**
 * The effects a step asks for, one payload type per effect kind. A payload is built, typed, where
 * it enters (a flow node's inputs in effect-nodes.ts, the built-in runs' steps); the executor reads
 * it as is. It is also the `started` record's `effect.payload`, so its fields are the reference's.
 */

/** A message of a conversation as sent to a model (roles as the flow wrote them). */
export type ChatTurn = { role: string; content: string };

export type LlmCallPayload = {
  type: 'llm_call';
  /** Both set or both blank (blank: the gateway's default model). */
  provider: string;
  model: string;
  params: { temperature: number; seed?: number; max_output_tokens?: number; include_session_attachments_index?: true };
  /** The call's turn joins the run's memory (`vars.context.messages`). */
  include_context: boolean;
  /** The tools described to the model (recorded; the agent loop parses its own requests). */
  tools: unknown[];
  /** False when the node turned token deltas off. */
  stream?: false;
  /** The conversation to send; without it, `system_prompt` and `prompt` make one. */
  messages?: ChatTurn[];
  prompt?: string;
  system_prompt?: string | null;
  response_schema?: Record<string, unknown>;
  response_schema_name?: string;
  /** Messages are trimmed (oldest non-system first) to about this many tokens. */
  max_input_tokens?: number;
  /** Attachments sent with the call (the context's `attachments`). */
  media?: unknown[];
  /** The origin's truncation controls (reference runtime-nodes §5.1); no visual pin sets them, `effectConfig` may. */
  max_output_tokens_cap?: number;
  max_truncation_attempts?: number;
  retry_on_truncation?: false;
  allow_truncation?: true;
  structured_output_fallback?: true;
};

export type AskUserPayload = { prompt: string; choices: unknown[]; allow_free_text: boolean; wait_key: string };

/** A `wait_event` node gives its key; an `on_event` listener gives `scope` and `name` and the key is built from its run (RN §7.2). */
export type WaitEventPayload = { wait_key?: string; scope?: string; name?: string; prompt: string | null; choices: unknown[] | null; allow_free_text: boolean };

export type WaitUntilPayload = { until: string };

/** RN §7.1: `event_id` is `<run>:<node>:<n>`, n counted per node; `session_id` is a target session. */
export type EmitEventPayload = { scope: string; name: string; payload: Record<string, unknown>; event_id?: string; max_steps?: 0; session_id?: string };

export type AnswerUserPayload = { message: string; level: string };

/** `tool_calls` as the node gave them (each call is parsed when the step runs); `allowed_tools` limits them. */
export type ToolCallsPayload = { tool_calls: unknown[]; allowed_tools?: string[] };

/** A child run (the `agent` and `subflow` nodes, a schedule's occurrence) the parent waits for. */
export type SubworkflowPayload = {
  workflow_id: string;
  /** A built-in child workflow (the agent loop) instead of one of the bundle's flows. */
  builtin?: string;
  vars: Record<string, unknown>;
  async: boolean;
  wait: boolean;
  inherit_context?: boolean;
  /** The child's session, when the node gave one (else the parent's). */
  session_id?: string;
  include_traces?: boolean;
  occurrence_index?: number;
};

/** The effects gateway-runs performs itself, by kind. */
export type BuiltinEffect =
  | { type: 'llm_call'; payload: LlmCallPayload }
  | { type: 'ask_user'; payload: AskUserPayload }
  | { type: 'wait_event'; payload: WaitEventPayload }
  | { type: 'wait_until'; payload: WaitUntilPayload }
  | { type: 'emit_event'; payload: EmitEventPayload }
  | { type: 'answer_user'; payload: AnswerUserPayload }
  | { type: 'tool_calls'; payload: ToolCallsPayload }
  | { type: 'start_subworkflow'; payload: SubworkflowPayload };

/** An effect node type another plugin registered: its payload is that plugin's plain JSON. */
export type ContributedEffect = { type: string; payload: Record<string, unknown>; contributed: true };

export type EffectRequest = BuiltinEffect | ContributedEffect;

export function isContributed(effect: EffectRequest): effect is ContributedEffect {
  return 'contributed' in effect;
}

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
