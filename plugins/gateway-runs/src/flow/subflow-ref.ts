/**
 * Which flow a `subflow` node starts (reference formats §1.4): `subflowId`, else the legacy
 * `flowId`, `workflowId` or `workflow_id`. The origin namespaces a same-bundle reference as
 * `<bundle>@<version>:<flow>`; a flow may carry it that way (or as `<bundle>:<flow>`), which names
 * the flow of its own bundle.
 */
import type { FlowNodeData } from './visualflow.js';

export function subflowRef(data: FlowNodeData): string {
  for (const key of ['subflowId', 'flowId', 'workflowId', 'workflow_id']) {
    const value = data[key];
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return '';
}

/** The bundle's own flow id a reference names (the namespaced forms of the same bundle stripped). */
export function localFlowId(ref: string, bundleId: string, bundleVersion: string): string {
  for (const prefix of [`${bundleId}@${bundleVersion}:`, `${bundleId}:`]) if (ref.startsWith(prefix)) return ref.slice(prefix.length);
  return ref;
}
