/**
 * How a node sees data (reference §2.5): outputs kept per node in `vars._temp.node_outputs`,
 * pure nodes evaluated lazily on every read, and an exec node's inputs built from the ambient
 * payload, then data edges, then pin defaults for unconnected pins.
 */
import { isLiteral } from './helpers/index.js';
import type { CompiledFlow } from './compile-flow.js';
import { UnsupportedNodeError, type NodeTypes, type PureScope } from './node-types.js';
import { defineKey, getPath } from './paths.js';

export interface RunVars extends Record<string, unknown> {
  _temp?: TempVars;
  _last_output?: unknown;
}

export interface TempVars {
  node_outputs: Record<string, unknown>;
  effects: Record<string, unknown>;
  control: ControlFrame[];
  /** Events each `emit_event` node emitted so far (its event ids count them). */
  event_seq?: Record<string, number>;
}

export interface ControlFrame {
  node: string;
  kind: 'while' | 'loop' | 'for' | 'sequence' | 'parallel' | 'on_event' | 'on_schedule';
  index: number;
  items?: unknown[];
  end?: number;
  step?: number;
}

export function temp(vars: RunVars): TempVars {
  vars._temp ??= { node_outputs: {}, effects: {}, control: [] };
  vars._temp.node_outputs ??= {};
  vars._temp.effects ??= {};
  vars._temp.control ??= [];
  return vars._temp;
}

/** A pin value of a node's output: a key of an object output, or the whole scalar for `result`/`output`. */
export function pinValue(output: unknown, handle: string): unknown {
  if (output !== null && typeof output === 'object' && !Array.isArray(output)) {
    const record = output as Record<string, unknown>;
    // Own keys only: a pin named `__proto__` or `constructor` must not hand out Object's prototype (a flow could then write through it).
    if (Object.hasOwn(record, handle)) return record[handle];
    return handle === 'result' || handle === 'output' ? output : null;
  }
  return handle === 'result' || handle === 'output' || handle === 'value' ? output : null;
}

export class NodeIO {
  /** What pure nodes see of the run. */
  readonly scope: PureScope;

  constructor(private readonly flow: CompiledFlow, private readonly vars: RunVars, private readonly nodeTypes: NodeTypes, run: { runId: string; account: string } = { runId: '', account: '' }) {
    this.scope = { vars, runId: run.runId, account: run.account };
  }

  /** Inputs of an exec node: ambient payload, then data edges, then defaults of unconnected pins. */
  execInputs(nodeId: string): Record<string, unknown> {
    const last = this.vars._last_output;
    const ambient = last && typeof last === 'object' && !Array.isArray(last) ? { ...(last as Record<string, unknown>) } : {};
    return { ...ambient, ...this.pinInputs(nodeId, []) };
  }

  /** Inputs from data edges and pin defaults only (pure nodes, and control conditions). */
  pinInputs(nodeId: string, trail: string[]): Record<string, unknown> {
    const node = this.flow.nodes.get(nodeId)!;
    const out: Record<string, unknown> = {};
    const defaults = node.data.pinDefaults ?? {};
    const declared = (node.data.inputs ?? []).filter((p) => p.type !== 'execution').map((p) => p.id);
    const connected = new Set<string>();
    for (const edge of this.flow.flow.edges) {
      if (edge.target === nodeId && edge.targetHandle !== 'exec-in' && edge.sourceHandle !== 'exec-out') connected.add(edge.targetHandle);
    }
    for (const pin of new Set([...declared, ...connected, ...Object.keys(defaults)])) {
      const src = this.flow.source(nodeId, pin);
      // defineKey: a pin named `__proto__` is an input like any other, not the inputs object's prototype.
      if (src) defineKey(out, pin, this.read(src.node, src.handle, [...trail, nodeId]));
      else if (Object.hasOwn(defaults, pin)) defineKey(out, pin, defaults[pin]);
    }
    return out;
  }

  read(nodeId: string, handle: string, trail: string[] = []): unknown {
    if (trail.includes(nodeId)) throw new Error(`data cycle through node '${nodeId}'`);
    if (this.flow.isExec(nodeId)) {
      const value = pinValue(temp(this.vars).node_outputs[nodeId] ?? null, handle);
      return value === undefined ? null : value;
    }
    const value = pinValue(this.evaluatePure(nodeId, trail), handle);
    return value === undefined ? null : value;
  }

  evaluatePure(nodeId: string, trail: string[]): unknown {
    const node = this.flow.nodes.get(nodeId)!;
    const type = this.flow.type(nodeId);
    if (isLiteral(type)) return { value: node.data.literalValue ?? null, tools: node.data.literalValue ?? null };
    const inputs = this.pinInputs(nodeId, trail);
    if (type === 'get_var') {
      const name = String(inputs.name ?? node.data.pinDefaults?.name ?? '');
      return { value: getPath(this.vars, name) ?? null };
    }
    if (type === 'get_context') {
      const context = (this.vars.context ?? {}) as Record<string, unknown>;
      return { context, task: context.task ?? null, messages: context.messages ?? [] };
    }
    const pure = this.nodeTypes.pure(type);
    if (pure) return pure.evaluate(inputs, node, this.scope);
    if (this.nodeTypes.effect(type)) throw new Error(`node '${nodeId}' has type '${type}', an effect node, but no execution pins: connect it to the exec flow`);
    throw new UnsupportedNodeError(nodeId, type);
  }
}
