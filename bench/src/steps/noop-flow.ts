/**
 * The flow measured: `on_flow_start` → ten `set_var` exec nodes (each writes one variable from a
 * pin default: in-memory work, no effect, no ledger record of its own) → `on_flow_end`, packed as
 * a `.flow` bundle (the zip layout of test/src/helpers/flow-builder.ts).
 */
import { zipSync } from 'fflate';

export const NOOP_BUNDLE_ID = 'bench-noop-steps';
export const NOOP_BUNDLE_VERSION = '1.0.0';
export const NOOP_FLOW_ID = 'noop10';
export const NOOP_STEPS = 10;

type Pin = { id: string; label: string; type: string };
const pin = (id: string, type = 'any'): Pin => ({ id, label: id, type });
const EXEC_IN = pin('exec-in', 'execution');
const EXEC_OUT = pin('exec-out', 'execution');

function node(id: string, type: string, inputs: Pin[], outputs: Pin[], extra: Record<string, unknown> = {}) {
  return { id, type, position: { x: 0, y: 0 }, data: { nodeType: type, inputs, outputs, ...extra } };
}

export function noopFlow() {
  const steps = Array.from({ length: NOOP_STEPS }, (_, i) => node(`s${i + 1}`, 'set_var', [EXEC_IN, pin('name'), pin('value')], [EXEC_OUT, pin('value')], { pinDefaults: { name: `v${i + 1}`, value: i + 1 } }));
  const nodes = [node('start', 'on_flow_start', [], [EXEC_OUT]), ...steps, node('end', 'on_flow_end', [EXEC_IN], [])];
  const edges = nodes.slice(1).map((n, i) => ({ id: `e${i}`, source: nodes[i]!.id, sourceHandle: 'exec-out', target: n.id, targetHandle: 'exec-in', animated: false }));
  return { id: NOOP_FLOW_ID, name: NOOP_BUNDLE_ID, entryNode: 'start', nodes, edges };
}

export function noopBundle(): Uint8Array {
  const manifest = {
    bundle_format_version: '1',
    bundle_id: NOOP_BUNDLE_ID,
    bundle_version: NOOP_BUNDLE_VERSION,
    entrypoints: [{ flow_id: NOOP_FLOW_ID, name: NOOP_BUNDLE_ID, description: `${NOOP_STEPS} no-op steps (benchmark)`, interfaces: [] }],
    default_entrypoint: NOOP_FLOW_ID,
    flows: { [NOOP_FLOW_ID]: `flows/${NOOP_FLOW_ID}.json` },
  };
  const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
  return zipSync({ 'manifest.json': enc(manifest), [`flows/${NOOP_FLOW_ID}.json`]: enc(noopFlow()) });
}
