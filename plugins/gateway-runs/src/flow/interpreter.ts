/**
 * One step of a VisualFlow run (reference §2.5–2.6): what an exec node does with its inputs.
 * Effects are only requested here; the runtime performs them durably and feeds the result back
 * (`vars._temp.effects[node]`), at which point the node maps it onto its output pins.
 */
import { isLiteral } from './helpers/index.js';
import type { CompiledFlow } from './compile-flow.js';
import { NodeIO, temp, type ControlFrame, type RunVars } from './node-io.js';
import { UnsupportedNodeError, type NodeTypes } from './node-types.js';
import { setPath } from './paths.js';
import { effectLanded, effectRequest, EFFECT_TYPES, isEffectNode } from './effect-nodes.js';
import type { EffectRequest } from './effect-requests.js';
import { onEventStep, onScheduleStep, type EventNodeStep } from './event-nodes.js';

export type { EffectRequest } from './effect-requests.js';

export type StepOutcome =
  /**
   * `varsChanged`: the step changed the run's variables beyond its output (a node's `applyToRun`).
   * `last`: the run's output if it ends here, when not `output` (a node's `lastNodeOutput`).
   */
  | { kind: 'goto'; from: string; node: string | null; output: unknown; varsChanged?: true; last?: unknown }
  | { kind: 'effect'; node: string; effect: EffectRequest }
  | { kind: 'complete'; output: Record<string, unknown> };

const CONTROL_TYPES = ['if', 'switch', 'while', 'loop', 'for', 'sequence', 'parallel'];
const OWN_TYPES = ['on_flow_start', 'on_flow_end', 'on_event', 'on_schedule', 'set_var', 'set_vars', 'set_var_property', 'add_message', 'json_schema', 'tools_allowlist', 'get_var', 'get_context'];

/**
 * The node types this interpreter and the effect executor run themselves (and `start_subworkflow`,
 * the effect `agent` and `subflow` request): gateway-runs reserves them in the registry.
 */
export const INTERPRETER_TYPES: readonly string[] = [...CONTROL_TYPES, ...OWN_TYPES, ...EFFECT_TYPES, 'start_subworkflow'];

/** Whether a node of this type can run here: one of the interpreter's, a literal, or a registered type. */
export function isSupportedType(type: string, nodeTypes: NodeTypes): boolean {
  return isLiteral(type) || nodeTypes.has(type);
}

/** Nodes whose inputs fall back to none when reading them throws (RN §2 rule 5): the origin resolves them inside a try. */
const INPUTS_OR_NONE = new Set(['agent', 'emit_event', 'on_event', 'on_schedule']);

const truthy = (v: unknown) => Boolean(v) && !(Array.isArray(v) && v.length === 0);

/** `bundleRef` (`<bundle>@<version>`) namespaces the flow id as the origin does (agent child workflow ids). */
export function step(flow: CompiledFlow, vars: RunVars, nodeId: string, runId: string, nodeTypes: NodeTypes, account = '', bundleRef = ''): StepOutcome {
  const io = new NodeIO(flow, vars, nodeTypes, { runId, account });
  const type = flow.type(nodeId);
  const node = flow.nodes.get(nodeId)!;
  const t = temp(vars);
  const finish = (output: unknown, handle = 'exec-out', setLast = true): StepOutcome => {
    t.node_outputs[nodeId] = output;
    if (setLast) vars._last_output = output;
    return { kind: 'goto', from: nodeId, node: flow.next(nodeId, handle), output };
  };

  if (isEffectNode(type)) {
    if (nodeId in t.effects) {
      const result = t.effects[nodeId];
      delete t.effects[nodeId];
      const landed = effectLanded(type, node, () => (INPUTS_OR_NONE.has(type) ? inputsOrNone(() => io.execInputs(nodeId)) : io.execInputs(nodeId)), vars, result, nodeTypes);
      if ('effect' in landed) return { kind: 'effect', node: nodeId, effect: landed.effect };
      return finish(landed.outputs);
    }
    const inputs = INPUTS_OR_NONE.has(type) ? inputsOrNone(() => io.execInputs(nodeId)) : io.execInputs(nodeId);
    return { kind: 'effect', node: nodeId, effect: effectRequest(type, node, inputs, vars, runId, bundleRef ? `${bundleRef}:${flow.id}` : flow.id, nodeTypes) };
  }
  const contributed = nodeTypes.effect(type);
  if (contributed) {
    // A plugin's effect node: the executor performs it durably; its recorded result lands here on the next step.
    if (nodeId in t.effects) {
      const result = (t.effects[nodeId] ?? {}) as Record<string, unknown>;
      delete t.effects[nodeId];
      let outcome = finish(contributed.outputs ? contributed.outputs(result) : result);
      if (contributed.lastNodeOutput && outcome.kind === 'goto') outcome = { ...outcome, last: contributed.lastNodeOutput(result) };
      if (!contributed.applyToRun) return outcome;
      contributed.applyToRun(result, { vars, nodeId });
      return { ...outcome, varsChanged: true } as StepOutcome;
    }
    return { kind: 'effect', node: nodeId, effect: { type, payload: contributed.payload(io.execInputs(nodeId), node), contributed: true } };
  }

  const waited = (outcome: EventNodeStep): StepOutcome => (outcome.kind === 'done' ? finish(outcome.output) : { kind: 'effect', node: nodeId, effect: outcome.effect });
  switch (type) {
    case 'on_event':
      return waited(onEventStep(node, inputsOrNone(() => io.pinInputs(nodeId, [])), vars));
    case 'on_schedule':
      return waited(onScheduleStep(node, inputsOrNone(() => io.pinInputs(nodeId, [])), vars));
    case 'on_flow_start': {
      const pins = (node.data.outputs ?? []).filter((p) => p.type !== 'execution').map((p) => p.id);
      const defaults = node.data.pinDefaults ?? {};
      const output: Record<string, unknown> = {};
      if (pins.length === 0) for (const [k, v] of Object.entries(vars)) if (!k.startsWith('_')) output[k] = v;
      for (const pin of pins) {
        if (vars[pin] !== undefined && vars[pin] !== null) output[pin] = vars[pin];
        else if (pin in defaults) {
          output[pin] = defaults[pin];
          if (!pin.startsWith('_')) vars[pin] = defaults[pin];
        } else output[pin] = null;
      }
      return finish(output);
    }
    case 'on_flow_end': {
      const inputs = io.execInputs(nodeId);
      const pins = (node.data.inputs ?? []).filter((p) => p.type !== 'execution').map((p) => p.id);
      const output: Record<string, unknown> = Object.fromEntries(pins.map((p) => [p, inputs[p] ?? null]));
      if (!('success' in output) || output.success === null) output.success = true;
      return { kind: 'complete', output };
    }
    case 'set_var': {
      const inputs = io.execInputs(nodeId);
      const name = String(inputs.name ?? '');
      if (!name || name.startsWith('_')) throw new Error(`set_var cannot write '${name}' (names starting with _ are reserved)`);
      setPath(vars, name, inputs.value ?? null);
      return finish({ value: inputs.value ?? null }, 'exec-out', false);
    }
    case 'set_vars': {
      const updates = io.execInputs(nodeId).updates;
      if (updates && typeof updates === 'object') for (const [k, v] of Object.entries(updates)) if (!k.startsWith('_')) setPath(vars, k, v);
      return finish({ updates }, 'exec-out', false);
    }
    case 'set_var_property': {
      const inputs = io.execInputs(nodeId);
      setPath(vars, `${String(inputs.name)}.${String(inputs.key)}`, inputs.value ?? null);
      return finish({ value: inputs.value ?? null }, 'exec-out', false);
    }
    case 'add_message': {
      const inputs = io.execInputs(nodeId);
      const context = ((vars.context as Record<string, unknown>) ??= {});
      const messages = (context.messages as unknown[]) ?? [];
      const message = { role: inputs.role ?? 'user', content: inputs.content ?? '' };
      context.messages = [...messages, message];
      return finish({ message, context, task: context.task ?? null, messages: context.messages });
    }
    case 'if':
      return finish(io.execInputs(nodeId), truthy(io.pinInputs(nodeId, []).condition) ? 'true' : 'false', false);
    case 'switch': {
      const value = String(io.pinInputs(nodeId, []).value ?? '');
      const match = (node.data.switchConfig?.cases ?? []).find((c) => String(c.value) === value);
      return finish(io.execInputs(nodeId), match ? `case:${match.id}` : 'default', false);
    }
    case 'while':
    case 'loop':
    case 'for':
    case 'sequence':
    case 'parallel':
      return controlStep(flow, vars, io, nodeId, type, finish);
  }

  const pure = nodeTypes.pure(type);
  if (pure) return finish(pure.evaluate(io.execInputs(nodeId), node, io.scope));
  throw new UnsupportedNodeError(nodeId, type);
}

function inputsOrNone(read: () => Record<string, unknown>): Record<string, unknown> {
  try {
    return read();
  } catch {
    return {};
  }
}

/** Loops and sequences keep a frame on `vars._temp.control`; a branch that ends returns here. */
function controlStep(flow: CompiledFlow, vars: RunVars, io: NodeIO, nodeId: string, type: ControlFrame['kind'], finish: (o: unknown, h?: string, l?: boolean) => StepOutcome): StepOutcome {
  const stack = temp(vars).control;
  let frame = stack[stack.length - 1];
  if (!frame || frame.node !== nodeId) {
    frame = { node: nodeId, kind: type, index: 0 };
    if (type === 'loop') {
      const items = io.pinInputs(nodeId, []).items;
      frame.items = Array.isArray(items) ? items : items === null || items === undefined ? [] : [items];
    }
    if (type === 'for') {
      const i = io.pinInputs(nodeId, []);
      frame.index = Number(i.start ?? 0);
      frame.end = Number(i.end ?? 0);
      frame.step = Number(i.step ?? 1) || 1;
    }
    stack.push(frame);
  } else if (type !== 'while') {
    frame.index += type === 'for' ? frame.step! : 1;
  }
  const done = () => {
    stack.pop();
    return finish(io.execInputs(nodeId), type === 'sequence' ? '__none__' : type === 'parallel' ? 'completed' : 'done', false);
  };
  switch (type) {
    case 'while': {
      if (!truthy(io.pinInputs(nodeId, []).condition)) return done();
      const out = { index: frame.index++, item: null };
      return finish(out, 'loop');
    }
    case 'loop': {
      if (frame.index >= frame.items!.length) return done();
      const ambient = vars._last_output && typeof vars._last_output === 'object' ? (vars._last_output as Record<string, unknown>) : {};
      return finish({ ...ambient, item: frame.items![frame.index], index: frame.index, total: frame.items!.length }, 'loop');
    }
    case 'for': {
      const ascending = frame.step! > 0;
      if (ascending ? frame.index >= frame.end! : frame.index <= frame.end!) return done();
      return finish({ i: frame.index, index: frame.index }, 'loop');
    }
    default: {
      const next = flow.next(nodeId, `then:${frame.index}`);
      if (!next) return done();
      return finish(io.execInputs(nodeId), `then:${frame.index}`, false);
    }
  }
}
