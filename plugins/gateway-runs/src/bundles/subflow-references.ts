/**
 * The origin's packer refuses a bundle whose flows start a subflow it does not hold (RN §6): every
 * `subflow` node an entrypoint's run may reach (following the subflows it starts) must name a flow
 * of the bundle. Checked on upload; bundles already on disk are read as they are (their run fails
 * at the `subflow` node with the origin's `Workflow '<id>' not found in registry`).
 */
import { reachableNodes } from '../flow/compile-flow.js';
import { localFlowId, subflowRef } from '../flow/subflow-ref.js';
import { BundleError } from './bundle-error.js';
import type { Bundle } from './read-bundle.js';

export function assertSubflowsPresent(bundle: Bundle): void {
  const missing = new Set<string>();
  const seen = new Set<string>();
  const queue = bundle.manifest.entrypoints.map((e) => e.flow_id);
  while (queue.length) {
    const flowId = queue.shift()!;
    const flow = bundle.flows.get(flowId);
    if (seen.has(flowId) || !flow) continue;
    seen.add(flowId);
    for (const id of reachableNodes(flow)) {
      if (flow.type(id) !== 'subflow' || !flow.isExec(id)) continue;
      const ref = localFlowId(subflowRef(flow.nodes.get(id)!.data), bundle.manifest.bundle_id, bundle.manifest.bundle_version);
      if (!ref) missing.add(`<missing-subflow-id:${flowId}:${id}>`);
      else if (bundle.flows.has(ref)) queue.push(ref);
      else missing.add(ref);
    }
  }
  if (missing.size) {
    const list = [...missing].sort().map((id) => `'${id.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`).join(', ');
    throw new BundleError(`Missing referenced subflows in flows_dir: [${list}] (add those flows to the bundle, or point the subflow nodes at flows it holds)`);
  }
}
