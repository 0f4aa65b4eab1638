/**
 * Effect nodes (reference §2.6, §3): the payload a node asks for, and how the effect's result
 * lands on its output pins.
 */
import { parseDuration } from './duration.js';
import { isRecord, type EffectRequest } from './effect-requests.js';
import { forgetMemorySources, kgMemoryText, memoryResultLanded, nextMemoryEffect } from './llm-memory-sources.js';
import type { NodeTypes } from './node-types.js';
import { temp, type RunVars } from './node-io.js';
import { eventScope } from './event-keys.js';
import { subflowRef } from './subflow-ref.js';
import { ValueError } from './value-error.js';
import type { FlowNode } from './visualflow.js';
import { agentOutputs, agentRequest, agentResult } from './agent-node.js';
import { callToolOutputs, callToolRequest } from './call-tool-node.js';
import { llmCallRequest } from './llm-call-node.js';
import { llmCallOutputs, llmNodeErrors, takeLlmNodeError } from './llm-call-outputs.js';

/** The effect node types the interpreter hands to the effect executor. */
export type EffectNodeKind = 'llm_call' | 'agent' | 'subflow' | 'ask_user' | 'wait_event' | 'wait_until' | 'emit_event' | 'answer_user' | 'tool_calls' | 'call_tool';
const EFFECT_NODE_KINDS: readonly EffectNodeKind[] = ['llm_call', 'agent', 'subflow', 'ask_user', 'wait_event', 'wait_until', 'emit_event', 'answer_user', 'tool_calls', 'call_tool'];
export const EFFECT_TYPES: ReadonlySet<string> = new Set(EFFECT_NODE_KINDS);

export function isEffectNode(type: string): type is EffectNodeKind {
  return EFFECT_TYPES.has(type);
}

type Inputs = Record<string, unknown>;
const present = (v: unknown) => v !== null && v !== undefined && v !== '';
const WAIT_UNITS = new Set(['seconds', 'minutes', 'hours']);

/** Provider and model are both set or both blank; blank means the run's `_runtime` choice, else the gateway default. */
function target(inputs: Inputs, config: Record<string, unknown>, vars: RunVars): { provider: string; model: string } {
  const runtime = isRecord(vars._runtime) ? vars._runtime : {};
  if (present(runtime.provider) && present(runtime.model)) return { provider: String(runtime.provider), model: String(runtime.model) };
  const provider = inputs.provider ?? config.provider;
  const model = inputs.model ?? config.model;
  return present(provider) && present(model) ? { provider: String(provider), model: String(model) } : { provider: '', model: '' };
}

/**
 * An effect's result landed on its node: the node's outputs, or one more effect first (an agent
 * with a schema makes its format-only llm_call in this run once the child answered).
 */
export function effectLanded(type: EffectNodeKind, node: FlowNode, inputs: () => Inputs, vars: RunVars, result: unknown, nodeTypes?: NodeTypes): { effect: EffectRequest } | { outputs: Record<string, unknown> } {
  // An llm_call's memory effects run first (reference §5.3): after each, the next one or the call itself.
  if (type === 'llm_call' && nodeTypes && memoryResultLanded(node, vars, result, nodeTypes)) return { effect: effectRequest(type, node, inputs(), vars, '', '', nodeTypes) };
  if (type === 'llm_call') forgetMemorySources(vars, node.id);
  if (type === 'agent') {
    const given = inputs();
    return agentResult(node, given, vars, result, target(given, node.data.agentConfig ?? {}, vars));
  }
  return { outputs: effectOutputs(type, result, vars, node.id) };
}

/** The effect an effect node asks for: its kind (`agent` and `subflow` start a child run) and its payload. */
export function effectRequest(type: EffectNodeKind, node: FlowNode, inputs: Inputs, vars: RunVars, runId: string, flowId: string, nodeTypes?: NodeTypes): EffectRequest {
  const config = node.data.effectConfig ?? {};
  switch (type) {
    case 'llm_call': {
      const memory = nodeTypes ? nextMemoryEffect(node, inputs, vars, nodeTypes) : null;
      if (memory) return memory;
      const request = llmCallRequest(node, inputs, vars, target(inputs, config, vars), kgMemoryText(vars, node.id));
      // A mistake the call goes out despite shows on the node's `error` output once the result lands.
      if (request.error) llmNodeErrors(vars)[node.id] = request.error;
      return { type, payload: request.payload };
    }
    case 'agent':
      return agentRequest(node, inputs, vars, flowId, target(inputs, node.data.agentConfig ?? {}, vars));
    case 'subflow': {
      const control = new Set(['inherit_context', 'input', 'session_id', 'child_session_id']);
      const input = inputs.input;
      const base: Inputs = input !== null && typeof input === 'object' ? { ...input } : {};
      for (const pin of node.data.inputs ?? []) if (pin.type !== 'execution' && !control.has(pin.id)) base[pin.id] = inputs[pin.id] ?? null;
      // RN §6: a declared `child_session_id` / `session_id` pin puts the child in that session (else it shares the parent's).
      const declared = new Set((node.data.inputs ?? []).map((p) => p.id));
      const session = ['child_session_id', 'session_id'].map((pin) => (declared.has(pin) ? inputs[pin] : undefined)).find((v) => typeof v === 'string' && v.trim());
      return { type: 'start_subworkflow', payload: { workflow_id: subflowRef(node.data), vars: base, async: true, wait: true, inherit_context: Boolean(inputs.inherit_context), ...(typeof session === 'string' ? { session_id: session.trim() } : {}) } };
    }
    case 'ask_user':
      return {
        type,
        payload: {
          prompt: present(inputs.prompt) ? String(inputs.prompt) : 'Please respond:',
          choices: Array.isArray(inputs.choices) ? inputs.choices : [],
          allow_free_text: config.allowFreeText === undefined ? true : Boolean(config.allowFreeText),
          wait_key: `user:${runId}:${node.id}`,
        },
      };
    case 'wait_event':
      return {
        type,
        payload: {
          wait_key: present(inputs.event_key) ? String(inputs.event_key) : 'default',
          prompt: inputs.prompt === null || inputs.prompt === undefined ? null : String(inputs.prompt),
          choices: Array.isArray(inputs.choices) ? inputs.choices : null,
          allow_free_text: inputs.allow_free_text !== false,
        },
      };
    case 'wait_until': {
      const unit = String(config.durationType ?? 'seconds');
      const raw = inputs.duration;
      if (unit === 'timestamp') return { type, payload: { until: new Date(String(raw)).toISOString() } };
      // Any other durationType counts in seconds (the executor's default); a wait in the past ends at once.
      const delayMs = parseDuration(`${Math.max(0, Number(raw ?? 0))} ${WAIT_UNITS.has(unit) ? unit : 'seconds'}`);
      if (delayMs === null) throw new ValueError(`wait_until: the duration ${JSON.stringify(raw)} is not a number of ${unit}`);
      return { type, payload: { until: new Date(Date.now() + delayMs).toISOString() } };
    }
    case 'emit_event': {
      // RN §7.1: a blank name fails the run (a tick exception); an unknown scope is `session`.
      const name = String(inputs.name || inputs.event_name || config.name || '').trim();
      if (!name) throw new ValueError(`emit_event node '${node.id}' missing event name`);
      const payload = inputs.payload;
      const target = inputs.session_id ?? config.session_id ?? config.sessionId;
      const seqs = (temp(vars).event_seq ??= {});
      seqs[node.id] = (Number(seqs[node.id]) || 0) + 1;
      return {
        type,
        payload: {
          scope: eventScope('scope' in inputs ? inputs.scope : config.scope),
          name,
          payload: isRecord(payload) ? { ...payload } : payload === null || payload === undefined ? {} : { value: payload },
          event_id: `${runId}:${node.id}:${seqs[node.id]}`,
          max_steps: 0,
          ...(typeof target === 'string' && target.trim() ? { session_id: target.trim() } : {}),
        },
      };
    }
    case 'tool_calls': {
      // `{tool_calls: [{name, arguments, call_id?}], allowed_tools?}`; one call object or a JSON string of them is accepted too.
      let calls: unknown = inputs.tool_calls ?? config.tool_calls ?? [];
      if (typeof calls === 'string') {
        try {
          calls = JSON.parse(calls);
        } catch {
          calls = [];
        }
      }
      if (calls !== null && typeof calls === 'object' && !Array.isArray(calls)) calls = [calls];
      const allowed = inputs.allowed_tools ?? config.allowed_tools;
      return { type, payload: { tool_calls: Array.isArray(calls) ? calls : [], ...(Array.isArray(allowed) && allowed.length ? { allowed_tools: allowed.map(String) } : {}) } };
    }
    case 'call_tool':
      return callToolRequest(inputs, config);
    case 'answer_user': {
      const level = String(inputs.level ?? 'message');
      return { type, payload: { message: String(inputs.message ?? ''), level: level === 'warn' ? 'warning' : level === 'info' ? 'message' : level } };
    }
  }
}

/** Effect result → the node's output pins. */
export function effectOutputs(type: string, result: unknown, vars: RunVars, nodeId?: string): Record<string, unknown> {
  const r = (result ?? {}) as Record<string, unknown>;
  switch (type) {
    case 'llm_call':
      return llmCallOutputs(r, nodeId === undefined ? null : takeLlmNodeError(vars, nodeId));
    case 'agent':
      return agentOutputs(nodeId ?? '', r, vars);
    case 'subflow': {
      // RN §6: `output` is the child's `result` when it has one (null for a failed child), the other declared pins read keys of it.
      const output = (r.output ?? {}) as Record<string, unknown>;
      const value = 'result' in output ? output.result : output;
      return { ...(isRecord(value) ? value : {}), output: value, sub_run_id: r.sub_run_id ?? null, child_output: output };
    }
    case 'ask_user':
      return { response: r.response ?? '' };
    case 'wait_event':
      return { event_data: result ?? null };
    case 'emit_event':
      return { ...r, delivered: r.delivered ?? 0, delivered_to: r.delivered_to ?? [], wait_key: r.wait_key ?? null };
    case 'answer_user':
      return { message: r.message ?? '' };
    case 'call_tool':
      return callToolOutputs(r);
    case 'tool_calls': {
      const results = Array.isArray(r.results) ? (r.results as Array<{ success?: boolean }>) : [];
      return { results, success: results.every((x) => x.success === true) };
    }
    default:
      void vars;
      return r;
  }
}
