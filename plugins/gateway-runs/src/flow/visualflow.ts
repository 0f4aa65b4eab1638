/** VisualFlow JSON as bundles carry it (reference: flow-and-ledger-formats §2). Unknown keys are ignored. */
export interface Pin {
  id: string;
  label?: string;
  type?: string;
}

export interface FlowNodeData {
  nodeType?: string;
  label?: string;
  inputs?: Pin[];
  outputs?: Pin[];
  pinDefaults?: Record<string, unknown>;
  literalValue?: unknown;
  concatConfig?: { separator?: string };
  effectConfig?: Record<string, unknown>;
  agentConfig?: Record<string, unknown>;
  subflowId?: string;
  flowId?: string;
  breakConfig?: { selectedPaths?: string[] };
  switchConfig?: { cases?: Array<{ id: string; value: unknown }> };
  [key: string]: unknown;
}

export interface FlowNode {
  id: string;
  type?: string;
  data: FlowNodeData;
}

export interface FlowEdge {
  id?: string;
  source: string;
  sourceHandle: string;
  target: string;
  targetHandle: string;
}

export interface VisualFlow {
  id: string;
  name?: string;
  description?: string;
  interfaces?: string[];
  nodes: FlowNode[];
  edges: FlowEdge[];
  entryNode?: string;
}

/** A node's type: `type` wins, else `data.nodeType`; `NodeType.X` is normalised to `x`. */
export function nodeType(node: FlowNode): string {
  const raw = node.type ?? node.data.nodeType ?? '';
  return raw.startsWith('NodeType.') ? raw.slice('NodeType.'.length).toLowerCase() : raw;
}
