/**
 * The `llm_call` node's payload (reference runtime-nodes §5.1–5.2, formats page §2.6 `llm_call`):
 * the schema pin, output- and input-token bounds, whether the run's conversation is sent
 * (`include_context`, else `use_context`), the `context` pin and its quirk, the wired tools.
 */
import { coerceBool } from './coerce.js';
import { isRecord, type ChatTurn, type LlmCallPayload } from './effect-requests.js';
import type { RunVars } from './node-io.js';
import { usesSessionAttachments } from './llm-memory-sources.js';
import { schemaFromPin } from './response-schema.js';
import type { FlowNode } from './visualflow.js';
import { TOOL_SPECS } from '../workspace/file-tools.js';

type Inputs = Record<string, unknown>;

export const PROVIDER_MODEL_MISMATCH = 'Provider and model must both be set, or both left blank for Gateway/Core defaults';

const present = (v: unknown) => v !== null && v !== undefined && v !== '';
const first = (...values: unknown[]) => values.find(present);

export interface LlmCallRequest {
  payload: LlmCallPayload;
  /** A mistake the call goes out despite, shown on the node's `error` output. */
  error: string | null;
}

/** The payload the node asks for; `target` is the provider and model the call runs on (both set or both blank). */
export function llmCallRequest(node: FlowNode, inputs: Inputs, vars: RunVars, target: { provider: string; model: string }, memoryText = ''): LlmCallRequest {
  const config = node.data.effectConfig ?? {};
  const provider = first(inputs.provider, config.provider);
  const model = first(inputs.model, config.model);
  const bothSet = present(provider) && present(model);
  const error = present(provider) !== present(model) ? PROVIDER_MODEL_MISMATCH : null;
  const includeContext = includeContextOf(inputs, config);
  // The origin reads the `context` and `max_in_tokens` pins only when the node names both provider and model.
  const contextPin = bothSet && isRecord(inputs.context) ? inputs.context : null;
  const prompt = String(inputs.prompt ?? '');
  const system = present(inputs.system) ? String(inputs.system) : null;

  const params: LlmCallPayload['params'] = { temperature: Number(inputs.temperature ?? config.temperature ?? 0.7) };
  const seed = Number(inputs.seed ?? config.seed ?? -1);
  if (seed >= 0) params.seed = seed;
  const maxOut = positiveInt(first(inputs.max_out_tokens, inputs.max_output_tokens, inputs.maxOutputTokens, config.max_output_tokens, config.maxOutputTokens));
  if (maxOut !== null) params.max_output_tokens = maxOut;

  const payload: LlmCallPayload = { type: 'llm_call', provider: target.provider, model: target.model, params, include_context: includeContext, tools: toolSpecs(inputs.tools ?? config.tools) };
  if (config.stream === false) payload.stream = false;

  const history = contextPin && Array.isArray(contextPin.messages) ? contextPin.messages : includeContext ? activeContext(vars) : null;
  // The KG memory the node's pins recalled (§5.3): a system message after the leading ones, or appended to the system prompt.
  const recalled = memoryText ? [{ role: 'system', content: memoryText }] : [];
  if (history) {
    const turns = history.map(turn);
    const lead = leadingSystem(turns);
    payload.messages = [...turns.slice(0, lead), ...(system ? [{ role: 'system', content: system }] : []), ...recalled, ...turns.slice(lead), { role: 'user', content: prompt }];
  } else {
    payload.prompt = prompt;
    payload.system_prompt = memoryText ? (system ? `${system}\n\n${memoryText}` : memoryText) : system;
  }
  if (usesSessionAttachments(inputs)) params.include_session_attachments_index = true;
  const maxIn = positiveInt(first(...(bothSet ? [inputs.max_in_tokens, inputs.max_input_tokens, inputs.maxInputTokens] : []), config.max_input_tokens, config.maxInputTokens));
  if (maxIn !== null) {
    payload.max_input_tokens = maxIn;
    if (payload.messages) payload.messages = trimToBudget(payload.messages, maxIn);
  } else if (payload.messages) {
    // The origin's handler falls back to the run's `_limits.max_input_tokens` unless `_runtime.disable_input_trimming`.
    const limits = isRecord(vars._limits) ? vars._limits : {};
    const runtime = isRecord(vars._runtime) ? vars._runtime : {};
    const fromRun = positiveInt(limits.max_input_tokens);
    if (fromRun !== null && !coerceBool(runtime.disable_input_trimming)) payload.messages = trimToBudget(payload.messages, fromRun);
  }
  const attachments = contextPin ? contextPin.attachments : includeContext && isRecord(vars.context) ? vars.context.attachments : undefined;
  if (Array.isArray(attachments) && (contextPin || attachments.length)) payload.media = attachments;

  const schema = schemaFromPin(isRecord(inputs.resp_schema) && Object.keys(inputs.resp_schema).length ? inputs.resp_schema : inputs.response_schema);
  if (schema) {
    payload.response_schema = schema;
    payload.response_schema_name = 'LLM_StructuredOutput';
  }
  if (coerceBool(config.structured_output_fallback)) payload.structured_output_fallback = true;
  const cap = positiveInt(config.max_output_tokens_cap);
  if (cap !== null) payload.max_output_tokens_cap = cap;
  const attempts = positiveInt(config.max_truncation_attempts);
  if (attempts !== null) payload.max_truncation_attempts = attempts;
  if (config.retry_on_truncation === false) payload.retry_on_truncation = false;
  if (config.allow_truncation === true) payload.allow_truncation = true;
  return { payload, error };
}

/**
 * `include_context` (preferred) or `use_context`: a pin present on the node (wired, default or
 * ambient) beats `effectConfig.include_context`, then `.use_context`; coerced as the origin does.
 */
export function includeContextOf(inputs: Inputs, config: Record<string, unknown>): boolean {
  for (const value of [inputs.include_context, inputs.use_context, config.include_context, config.use_context]) {
    if (value !== undefined) return coerceBool(value);
  }
  return false;
}

/**
 * The run's active context view: its system messages first, then the last
 * `_limits.max_history_messages` others (`-1` or unset: all).
 */
export function activeContext(vars: RunVars): unknown[] {
  const messages = isRecord(vars.context) && Array.isArray(vars.context.messages) ? vars.context.messages : [];
  const limits = isRecord(vars._limits) ? vars._limits : {};
  const keep = Number(limits.max_history_messages ?? -1);
  const systemOnes = messages.filter((m) => isRecord(m) && m.role === 'system');
  const others = messages.filter((m) => !(isRecord(m) && m.role === 'system'));
  return [...systemOnes, ...(keep >= 0 ? (keep === 0 ? [] : others.slice(-keep)) : others)];
}

/** The tools the node's `tools` pin names, as the specs the model is shown (Keel's file tools by name; a spec object as given). */
export function toolSpecs(value: unknown): unknown[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' && value.trim() ? value.split(',').map((s) => s.trim()).filter(Boolean) : [];
  return list.map((entry) => {
    if (isRecord(entry)) return entry;
    const name = String(entry);
    const spec = TOOL_SPECS.find((t) => t.name === name);
    return spec ? { name: spec.name, description: spec.description, parameters: spec.parameters } : { name, description: '', parameters: { type: 'object', properties: {} } };
  });
}

function turn(message: unknown): ChatTurn {
  if (message === null || message === undefined) throw new TypeError(`Cannot read properties of ${String(message)} (reading 'role')`);
  const m = isRecord(message) ? message : {};
  return { role: String(m.role), content: String(m.content ?? '') };
}

function leadingSystem(turns: ChatTurn[]): number {
  let n = 0;
  while (n < turns.length && turns[n]!.role === 'system') n++;
  return n;
}

/** Oldest non-system messages go first until the estimate (characters / 4) fits; system messages and the last message stay. */
function trimToBudget(messages: ChatTurn[], maxTokens: number): ChatTurn[] {
  const cost = (list: ChatTurn[]) => Math.ceil(list.reduce((n, m) => n + m.content.length, 0) / 4);
  const out = [...messages];
  for (let i = 0; cost(out) > maxTokens && i < out.length - 1; ) {
    if (out[i]!.role === 'system') i++;
    else out.splice(i, 1);
  }
  return out;
}

function positiveInt(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : null;
}
