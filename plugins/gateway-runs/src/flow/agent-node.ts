/**
 * The `agent` node (formats page §2.6 `agent`, reference runtime-nodes §5.2–5.3): the child run of
 * its reasoning loop (workflow `visual_react_agent_<namespaced flow>_<node>`), the conversation it
 * starts from (`include_context` / `use_context`, the `context` pin), and — when a schema is asked
 * for (`resp_schema` / `response_schema`, or `agentConfig.outputSchema`) — the format-only
 * `llm_call` the node makes in the parent run once the child answered (the child never sees the schema).
 */
import { coerceBool } from './coerce.js';
import { isRecord, type BuiltinEffect, type LlmCallPayload } from './effect-requests.js';
import { activeContext, includeContextOf } from './llm-call-node.js';
import type { RunVars } from './node-io.js';
import { schemaFromPin } from './response-schema.js';
import type { FlowNode } from './visualflow.js';

type Inputs = Record<string, unknown>;
const present = (v: unknown) => v !== null && v !== undefined && v !== '';

/** The child workflow id the origin gives an agent node: every char outside `[A-Za-z0-9_-]` of the namespaced flow id and the node id becomes `_`. */
export function agentWorkflowId(namespacedFlowId: string, nodeId: string): string {
  return `visual_react_agent_${sanitize(namespacedFlowId)}_${sanitize(nodeId)}`;
}

/** The child run's start: its task, starting conversation, provider and model, tools and limits. */
export function agentRequest(node: FlowNode, inputs: Inputs, vars: RunVars, namespacedFlowId: string, target: { provider: string; model: string }): BuiltinEffect {
  const agentConfig = node.data.agentConfig ?? {};
  const runtime: Record<string, unknown> = { inbox: [], provider: target.provider, model: target.model, allowed_tools: inputs.tools ?? agentConfig.tools ?? [] };
  const temperature = Number(inputs.temperature ?? 0.7);
  if (temperature !== 0.7) runtime.temperature = temperature;
  const seed = Number(inputs.seed ?? -1);
  if (seed >= 0) runtime.seed = seed;
  if (present(inputs.system ?? agentConfig.system)) runtime.system_prompt_extra = String(inputs.system ?? agentConfig.system);
  const includeContext = includeContextOf(inputs, agentConfig);
  const parentContext = isRecord(vars.context) ? vars.context : {};
  const context: Record<string, unknown> = { task: String(inputs.prompt ?? ''), messages: includeContext ? activeContext(vars).map(turn) : [] };
  if (includeContext && parentContext.attachments !== undefined) context.attachments = parentContext.attachments;
  // A context pin: non-empty messages replace the starting conversation; its other keys are copied.
  if (isRecord(inputs.context)) {
    for (const [key, value] of Object.entries(inputs.context)) {
      if (key !== 'messages') context[key] = value;
      else if (Array.isArray(value) && value.length) context.messages = value.map(turn);
    }
  }
  const limits = isRecord(vars._limits) ? vars._limits : {};
  return {
    type: 'start_subworkflow',
    payload: {
      workflow_id: agentWorkflowId(namespacedFlowId, node.id),
      builtin: 'react_agent',
      vars: { context, _runtime: runtime, _limits: { ...limits, max_iterations: Number(inputs.max_iterations ?? agentConfig.max_iterations ?? 50) } },
      async: true,
      wait: true,
      include_traces: true,
    },
  };
}

/** The schema the agent's answer must follow: a non-empty pin beats (and force-enables) `agentConfig.outputSchema`. */
export function agentSchema(node: FlowNode, inputs: Inputs): Record<string, unknown> | null {
  const pin = schemaFromPin(isRecord(inputs.resp_schema) && Object.keys(inputs.resp_schema).length ? inputs.resp_schema : inputs.response_schema);
  if (pin) return pin;
  const configured = isRecord(node.data.agentConfig) ? node.data.agentConfig.outputSchema : undefined;
  return isRecord(configured) && coerceBool(configured.enabled) ? schemaFromPin(configured.jsonSchema) : null;
}

interface AgentPhase {
  /** The child's result (`{sub_run_id, output}`) while the format-only call runs. */
  sub: Record<string, unknown>;
}

function phases(vars: RunVars): Record<string, AgentPhase> {
  const temp = (vars._temp ??= { node_outputs: {}, effects: {}, control: [] }) as unknown as Record<string, unknown>;
  if (!isRecord(temp.agent)) temp.agent = {};
  return temp.agent as Record<string, AgentPhase>;
}

/**
 * What the node does once a result landed: with a schema and the child's answer just in, the
 * format-only `llm_call` in this run (the child's result kept until it returns); otherwise nothing more.
 */
export function agentFollowUp(node: FlowNode, inputs: Inputs, vars: RunVars, result: unknown, target: { provider: string; model: string }): BuiltinEffect | null {
  const state = phases(vars);
  if (state[node.id]) return null;
  const schema = agentSchema(node, inputs);
  if (!schema) return null;
  const sub = isRecord(result) ? result : {};
  state[node.id] = { sub };
  const output = isRecord(sub.output) ? sub.output : {};
  const task = String(inputs.prompt ?? output.task ?? '');
  const answer = String(output.answer ?? output.response ?? '');
  const params: LlmCallPayload['params'] = { temperature: Number(inputs.temperature ?? 0.7) };
  const seed = Number(inputs.seed ?? -1);
  if (seed >= 0) params.seed = seed;
  const payload: LlmCallPayload = {
    type: 'llm_call',
    provider: target.provider,
    model: target.model,
    params,
    include_context: false,
    tools: [],
    messages: [{ role: 'user', content: `Convert the Agent answer into a JSON object matching the required schema. Return JSON only.\n\nTask:\n${task}\n\nAnswer:\n${answer}` }],
    system_prompt: present(inputs.system) ? String(inputs.system) : null,
    response_schema: schema,
    response_schema_name: `Agent_${node.id}`,
  };
  return { type: 'llm_call', payload };
}

/** The node's outputs: the child's answer, and with a schema the format call's `data` (else strict JSON of its content, else `{}`). */
export function agentOutputs(nodeId: string, result: Record<string, unknown>, vars: RunVars): Record<string, unknown> {
  const state = phases(vars);
  const pending = state[nodeId];
  delete state[nodeId];
  const sub = pending ? pending.sub : result;
  const output = isRecord(sub.output) ? sub.output : {};
  const subRunId = sub.sub_run_id ?? null;
  // RN §6: the origin's agent node reports success even when its child failed (the run row's `child_failures` says it did).
  const success = true;
  const answer = output.answer ?? output.response ?? '';
  const messages = Array.isArray(output.messages) ? output.messages : [];
  const toolCalls = Array.isArray(output.tool_calls) ? output.tool_calls : [];
  const toolResults = Array.isArray(output.tool_results) ? output.tool_results : [];
  const scratchpad = { sub_run_id: subRunId, task: output.task ?? null, messages, node_traces: isRecord(output.node_traces) ? output.node_traces : {}, tool_calls: toolCalls, tool_results: toolResults };
  const meta = { schema: 'abstractcode.agent.v1.meta', version: 1, sub_run_id: subRunId, iterations: output.iterations ?? 0, tool_calls: toolCalls.length, tool_results: toolResults.length, output_mode: 'unstructured', provider: output.provider ?? null, model: output.model ?? null };
  if (!pending) return { response: answer, success, data: output.data ?? null, meta, scratchpad };
  const data = isRecord(result.data) ? result.data : strictJson(result.content) ?? {};
  return { response: JSON.stringify(data), data, success: true, meta: { ...meta, output_mode: 'structured' }, scratchpad, tool_calls: toolCalls, tool_results: toolResults };
}

/**
 * With the context on, the parent's conversation gets the agent's task and answer (de-duplicated by
 * `metadata.message_id`), as the origin appends them once the child completes.
 */
export function appendAgentTurn(vars: RunVars, nodeId: string, inputs: Inputs, node: FlowNode, sub: Record<string, unknown>): void {
  if (!includeContextOf(inputs, node.data.agentConfig ?? {})) return;
  const output = isRecord(sub.output) ? sub.output : {};
  const subRunId = String(sub.sub_run_id ?? '');
  const context = isRecord(vars.context) ? vars.context : {};
  const messages = Array.isArray(context.messages) ? [...context.messages] : [];
  const ids = new Set(messages.map((m) => (isRecord(m) && isRecord(m.metadata) ? m.metadata.message_id : undefined)).filter(Boolean));
  const add = (role: string, content: string, suffix: string, kind = 'agent_turn') => {
    const messageId = `agent:${subRunId}:${nodeId}:${suffix}`;
    if (!ids.has(messageId)) messages.push({ role, content, metadata: { kind, message_id: messageId, node_id: nodeId } });
  };
  add('user', String(inputs.prompt ?? output.task ?? ''), 'task');
  const results = Array.isArray(output.tool_results) ? output.tool_results.filter(isRecord) : [];
  results.slice(0, MAX_OBSERVATIONS).forEach((r, i) => add('assistant', observation(r), `tool:${typeof r.call_id === 'string' && r.call_id ? r.call_id : i}`, 'tool_observation'));
  if (results.length > MAX_OBSERVATIONS) add('assistant', `[tools]: (omitted ${results.length - MAX_OBSERVATIONS} additional tool results for brevity; see sub_run_id=${subRunId})`, 'tool:omitted', 'tool_observation');
  add('assistant', String(output.answer ?? output.response ?? ''), 'answer');
  vars.context = { ...context, messages };
}

const MAX_OBSERVATIONS = 20;
const MAX_OBSERVATION_CHARS = 2000;

/** `[<tool>]: <output>` (JSON indented when not text) or `[<tool>]: Error: <error>`, cut at 2000 characters. */
function observation(result: Record<string, unknown>): string {
  const name = String(result.name ?? 'tool');
  const body = result.success === false ? `Error: ${String(result.error ?? 'failed')}` : typeof result.output === 'string' ? result.output : JSON.stringify(result.output ?? null, null, 2);
  const clipped = body.length > MAX_OBSERVATION_CHARS ? `${body.slice(0, MAX_OBSERVATION_CHARS)}… (truncated, ${body.length} chars total)` : body;
  return `[${name}]: ${clipped}`;
}

function strictJson(content: unknown): Record<string, unknown> | null {
  if (typeof content !== 'string') return null;
  try {
    const value = JSON.parse(content) as unknown;
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

function turn(message: unknown): { role: string; content: string } {
  if (message === null || message === undefined) throw new TypeError(`Cannot read properties of ${String(message)} (reading 'role')`);
  const m = isRecord(message) ? message : {};
  return { role: String(m.role), content: String(m.content ?? '') };
}

function sanitize(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The child's result (or, with a schema, the format call's) landed: one more effect, or the node's outputs. */
export function agentResult(node: FlowNode, inputs: Inputs, vars: RunVars, result: unknown, target: { provider: string; model: string }): { effect: BuiltinEffect } | { outputs: Record<string, unknown> } {
  const r = isRecord(result) ? result : {};
  if (!phases(vars)[node.id]) {
    appendAgentTurn(vars, node.id, inputs, node, r);
    const effect = agentFollowUp(node, inputs, vars, r, target);
    if (effect) return { effect };
  }
  return { outputs: agentOutputs(node.id, r, vars) };
}
