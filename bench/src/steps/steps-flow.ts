/**
 * A flow the steps benchmark measures: its bundle, the plugins the server needs for its node types,
 * and how to tell that a run of it did what it should.
 */
import { zipSync } from 'fflate';

export interface StepsFlow {
  bundleId: string;
  flowId: string;
  /** One line for the report: what the flow does. */
  description: string;
  /** The packages the kernel child loads (`{use}` entries of the config), in order. */
  plugins: string[];
  document(): { id: string; nodes: unknown[]; edges: unknown[] };
  /** The p50 target (start → completed), when the flow has one. */
  p50TargetMs?: number;
  /** Why a completed run's output is wrong, or null when it is right. */
  checkOutput(output: Record<string, unknown> | null): string | null;
}

/** The runs stack every steps flow needs. */
export const RUNS_PLUGINS = ['@keel/plugin-inference', '@keel/plugin-ledger', '@keel/plugin-workspaces', '@keel/plugin-gateway-runs'];

export type Pin = { id: string; label: string; type: string };
export const pin = (id: string, type = 'any'): Pin => ({ id, label: id, type });
export const EXEC_IN = pin('exec-in', 'execution');
export const EXEC_OUT = pin('exec-out', 'execution');

export function flowNode(id: string, type: string, inputs: Pin[], outputs: Pin[], extra: Record<string, unknown> = {}) {
  return { id, type, position: { x: 0, y: 0 }, data: { nodeType: type, inputs, outputs, ...extra } };
}

/** Exec edges through `ids` in order. */
export function execChain(ids: string[]) {
  return ids.slice(1).map((id, i) => ({ id: `x${i}`, source: ids[i]!, sourceHandle: 'exec-out', target: id, targetHandle: 'exec-in', animated: false }));
}

/** A data edge `source.handle -> target.handle`. */
export function dataEdge(from: string, to: string) {
  const [source, sourceHandle] = from.split('.') as [string, string];
  const [target, targetHandle] = to.split('.') as [string, string];
  return { id: `d:${from}->${to}`, source, sourceHandle, target, targetHandle, animated: false };
}

/** The flow as a `.flow` bundle (the zip layout of test/src/helpers/flow-builder.ts). */
export function bundleOf(flow: StepsFlow): Uint8Array {
  const manifest = {
    bundle_format_version: '1',
    bundle_id: flow.bundleId,
    bundle_version: '1.0.0',
    entrypoints: [{ flow_id: flow.flowId, name: flow.bundleId, description: `${flow.description} (benchmark)`, interfaces: [] }],
    default_entrypoint: flow.flowId,
    flows: { [flow.flowId]: `flows/${flow.flowId}.json` },
  };
  const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
  return zipSync({ 'manifest.json': enc(manifest), [`flows/${flow.flowId}.json`]: enc({ ...flow.document(), name: flow.bundleId, entryNode: 'start' }) });
}

/** Uploads `flow` as a bundle of the token's account (replacing an earlier upload of the same version). */
export async function uploadFlow(port: number, token: string, flow: StepsFlow): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([bundleOf(flow)], { type: 'application/zip' }), `${flow.bundleId}.flow`);
  form.append('overwrite', 'true');
  const res = await fetch(`http://127.0.0.1:${port}/api/gateway/bundles/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  if (res.status !== 201) throw new Error(`bundle upload answered ${res.status}: ${await res.text()}`);
}
