/**
 * Compiles a VisualFlow into the lookups the runtime walks: exec successors per output handle,
 * the data edge feeding each input pin, and the entry node. Structural mistakes (two data edges
 * into one pin, several exec edges out of a plain handle) are refused with the node named.
 */
import { nodeType, type FlowNode, type VisualFlow } from './visualflow.js';

export interface DataSource {
  node: string;
  handle: string;
}

export interface CompiledFlow {
  id: string;
  flow: VisualFlow;
  nodes: Map<string, FlowNode>;
  type(nodeId: string): string;
  isExec(nodeId: string): boolean;
  /** The node an exec output handle leads to, if any. */
  next(nodeId: string, handle: string): string | null;
  /** The data edge feeding an input pin, if any. */
  source(nodeId: string, pin: string): DataSource | null;
  entry: string;
}

/** Types that are pure even when their pins are missing from the document. */
const ALWAYS_PURE = new Set(['get_var', 'get_context', 'bool_var', 'var_decl', 'break_object', 'tool_parameters']);
const BRANCHING = /^(true|false|default|loop|done|completed|case:.+|then:\d+)$/;

export class FlowCompileError extends Error {}

export function compileFlow(flow: VisualFlow): CompiledFlow {
  if (!flow || typeof flow.id !== 'string' || !Array.isArray(flow.nodes) || !Array.isArray(flow.edges)) {
    throw new FlowCompileError('a flow needs an id, nodes and edges');
  }
  const nodes = new Map(flow.nodes.map((n) => [n.id, n]));
  const exec = new Set<string>();
  for (const node of flow.nodes) {
    const type = nodeType(node);
    if (ALWAYS_PURE.has(type) || type.startsWith('literal_')) continue;
    const pins = [...(node.data.inputs ?? []), ...(node.data.outputs ?? [])];
    if (pins.some((p) => p.type === 'execution') || type === 'on_flow_start' || type === 'on_flow_end') exec.add(node.id);
  }
  const execNext = new Map<string, Map<string, string>>();
  const dataIn = new Map<string, Map<string, DataSource>>();
  for (const edge of flow.edges) {
    if (!nodes.has(edge.source) || !nodes.has(edge.target)) continue;
    if (edge.targetHandle === 'exec-in') {
      const out = execNext.get(edge.source) ?? new Map<string, string>();
      if (out.has(edge.sourceHandle) && !BRANCHING.test(edge.sourceHandle)) {
        throw new FlowCompileError(`node '${edge.source}' has several exec edges out of '${edge.sourceHandle}'`);
      }
      out.set(edge.sourceHandle, edge.target);
      execNext.set(edge.source, out);
    } else if (edge.sourceHandle !== 'exec-out') {
      const ins = dataIn.get(edge.target) ?? new Map<string, DataSource>();
      if (ins.has(edge.targetHandle)) throw new FlowCompileError(`input pin '${edge.targetHandle}' of node '${edge.target}' has two data edges`);
      ins.set(edge.targetHandle, { node: edge.source, handle: edge.sourceHandle });
      dataIn.set(edge.target, ins);
    }
  }
  const entry = pickEntry(flow, exec, execNext);
  return {
    id: flow.id,
    flow,
    nodes,
    type: (id) => nodeType(nodes.get(id)!),
    isExec: (id) => exec.has(id),
    next: (id, handle) => execNext.get(id)?.get(handle) ?? null,
    source: (id, pin) => dataIn.get(id)?.get(pin) ?? null,
    entry,
  };
}

function pickEntry(flow: VisualFlow, exec: Set<string>, execNext: Map<string, Map<string, string>>): string {
  if (flow.entryNode && exec.has(flow.entryNode)) return flow.entryNode;
  const targets = new Set([...execNext.values()].flatMap((m) => [...m.values()]));
  // An `on_event` node starts its own listener run (reference RN §7.2), never the flow's run.
  const startable = (n: VisualFlow['nodes'][number]) => exec.has(n.id) && nodeType(n) !== 'on_event';
  const first = flow.nodes.find((n) => startable(n) && !targets.has(n.id)) ?? flow.nodes.find(startable) ?? flow.nodes.find((n) => exec.has(n.id));
  if (!first) throw new FlowCompileError('the flow has no execution node to start from');
  return first.id;
}

/** The flow's `on_event` nodes: each one's branch runs in a listener child run of each root run. */
export function eventListenerNodes(compiled: CompiledFlow): string[] {
  return compiled.flow.nodes.filter((n) => nodeType(n) === 'on_event').map((n) => n.id);
}

/** Exec nodes reachable from `from` (default: the entry), and the pure nodes feeding them: what a run may touch. */
export function reachableNodes(compiled: CompiledFlow, from: readonly string[] = [compiled.entry]): string[] {
  const seen = new Set<string>();
  const stack = [...from];
  while (stack.length) {
    const id = stack.pop()!;
    if (seen.has(id) || !compiled.nodes.has(id)) continue;
    seen.add(id);
    const node = compiled.nodes.get(id)!;
    for (const pin of node.data.inputs ?? []) {
      const src = compiled.source(id, pin.id);
      if (src) stack.push(src.node);
    }
    for (const edge of compiled.flow.edges) {
      if (edge.target === id && edge.targetHandle !== 'exec-in' && edge.sourceHandle !== 'exec-out') stack.push(edge.source);
      if (edge.source === id && edge.targetHandle === 'exec-in') stack.push(edge.target);
    }
  }
  return [...seen];
}
