/** Builds small `.flow` bundles in tests (the same zip layout real bundles use). */
import { zipSync } from 'fflate';

type Pin = { id: string; label: string; type: string };
const pin = (id: string, type = 'any'): Pin => ({ id, label: id, type });

export interface NodeSpec {
  id: string;
  type: string;
  inputs?: string[];
  outputs?: string[];
  exec?: boolean;
  data?: Record<string, unknown>;
}

export function node(spec: NodeSpec) {
  const exec = spec.exec ?? true;
  const inputs = [...(exec && spec.type !== 'on_flow_start' ? [pin('exec-in', 'execution')] : []), ...(spec.inputs ?? []).map((p) => pin(p))];
  const outputs = [...(exec && spec.type !== 'on_flow_end' ? [pin('exec-out', 'execution')] : []), ...(spec.outputs ?? []).map((p) => pin(p))];
  return { id: spec.id, type: spec.type, position: { x: 0, y: 0 }, data: { nodeType: spec.type, inputs, outputs, ...spec.data } };
}

/** start → tool_calls (the calls from the start's `calls` input) → end with its results. */
export function toolCallsFlow() {
  return {
    id: 'tools',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: ['calls'] }),
      node({ id: 'run_tools', type: 'tool_calls', inputs: ['tool_calls'], outputs: ['results', 'success'] }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['results', 'success'] }),
    ],
    edges: edges('start -> run_tools', 'run_tools -> end', 'start.calls -> run_tools.tool_calls', 'run_tools.results -> end.results', 'run_tools.success -> end.success'),
  };
}

/** start → ask_user → tool_calls (calls from input_data) → end: a test changes the folder or the policy while the run waits. */
export function toolsAfterAskFlow() {
  return {
    id: 'tools',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: ['calls'] }),
      node({ id: 'ask', type: 'ask_user', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'Ready?' } } }),
      node({ id: 'run_tools', type: 'tool_calls', inputs: ['tool_calls'], outputs: ['results', 'success'] }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['results', 'success'] }),
    ],
    edges: edges('start -> ask', 'ask -> run_tools', 'run_tools -> end', 'start.calls -> run_tools.tool_calls', 'run_tools.results -> end.results', 'run_tools.success -> end.success'),
  };
}

/** start → ask_user ("Your name?") → end with the answer as `response`. */
export function askUserFlow(id = 'ask') {
  return {
    id,
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: [] }),
      node({ id: 'ask', type: 'ask_user', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'Your name?' } } }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
    ],
    edges: edges('start -> ask', 'ask -> end', 'ask.response -> end.response'),
  };
}

/** `a.out -> b.in` for data, `a -> b` for exec (`a:handle -> b` for a branch handle). */
export function edges(...specs: string[]) {
  return specs.map((s, i) => {
    const [from, to] = s.split('->').map((x) => x.trim()) as [string, string];
    if (!from.includes('.') && !to.includes('.')) {
      const [source, handle] = from.split(':') as [string, string | undefined];
      return { id: `e${i}`, source, sourceHandle: handle ?? 'exec-out', target: to, targetHandle: 'exec-in', animated: false };
    }
    const [source, sourceHandle] = from.split('.') as [string, string];
    const [target, targetHandle] = to.split('.') as [string, string];
    return { id: `e${i}`, source, sourceHandle, target, targetHandle, animated: false };
  });
}

/** A `.flow` bundle whose entrypoint is `flow`; `subflows` are further flows in it (for `subflow` nodes), not entrypoints. */
export function bundle(bundleId: string, version: string, flow: { id: string; nodes: unknown[]; edges: unknown[]; interfaces?: string[] }, subflows: { id: string; nodes: unknown[]; edges: unknown[] }[] = []): Buffer {
  const manifest = {
    bundle_format_version: '1',
    bundle_id: bundleId,
    bundle_version: version,
    entrypoints: [{ flow_id: flow.id, name: bundleId, description: `${bundleId} test flow`, interfaces: flow.interfaces ?? [] }],
    default_entrypoint: flow.id,
    flows: Object.fromEntries([flow, ...subflows].map((f) => [f.id, `flows/${f.id}.json`])),
  };
  const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
  const files = Object.fromEntries([flow, ...subflows].map((f) => [`flows/${f.id}.json`, enc({ name: bundleId, entryNode: 'start', ...f })]));
  return Buffer.from(zipSync({ 'manifest.json': enc(manifest), ...files }));
}

/** A multipart body with one file field (for `POST /bundles/upload` through `inject`). */
export function multipart(fields: Record<string, string>, file: { name: string; bytes: Buffer }): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----keel${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/zip\r\n\r\n`), file.bytes, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
