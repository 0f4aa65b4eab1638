/**
 * The compiled flow each run executes: found once per run (its bundle, or its catalog version's
 * immutable bytes by the digest recorded at start) and kept while the run is live, since a bundle
 * lookup per step would scan the bundle folders every time.
 */
import type { Logger } from '@keel/plugin-sdk';
import type { BundleRegistry } from '../bundles/bundle-registry.js';
import type { CatalogStore } from '../catalog/catalog-store.js';
import { eventListenerNodes, reachableNodes, type CompiledFlow } from '../flow/compile-flow.js';
import { isSupportedType } from '../flow/interpreter.js';
import { UnsupportedNodeError, type NodeTypes } from '../flow/node-types.js';
import type { RunState } from './run-state.js';

/** The run's flow is no longer installed (its bundle was removed, or its catalog bytes are unreadable). */
export class FlowMissingError extends Error {}

export class RunFlows {
  private readonly cache = new Map<string, CompiledFlow>();

  constructor(private readonly bundles: BundleRegistry, private readonly catalog: CatalogStore, private readonly nodeTypes: NodeTypes, private readonly log: Logger) {}

  /** The run's flow; throws FlowMissingError when it cannot be found. */
  of(run: RunState): CompiledFlow {
    const cached = this.cache.get(run.run_id);
    if (cached) return cached;
    const bundle = run.workflow_policy ? this.catalogBundle(run) : this.bundles.find(run.account, run.bundle_id, run.bundle_version)?.bundle;
    const flow = bundle?.flows.get(run.flow_id);
    if (!flow) throw new FlowMissingError(`flow '${run.flow_id}' of bundle ${run.bundle_id}@${run.bundle_version} is no longer installed`);
    this.cache.set(run.run_id, flow);
    return flow;
  }

  /** Keeps the flow a run's start resolved (the same bundle version `of` would find). */
  remember(runId: string, flow: CompiledFlow): void {
    this.cache.set(runId, flow);
  }

  /** A run ended: its flow need not be kept. */
  forget(runId: string): void {
    this.cache.delete(runId);
  }

  /**
   * Throws UnsupportedNodeError naming every node the run (from `entry`) or its event listeners may
   * reach whose type no loaded plugin provides, so one attempt shows all there is to fix.
   */
  assertSupported(flow: CompiledFlow, entry: string = flow.entry): void {
    const from = entry === flow.entry ? [entry, ...eventListenerNodes(flow)] : [entry];
    const missing = reachableNodes(flow, from)
      .map((id) => ({ node: id, nodeType: flow.type(id) }))
      .filter((n) => !isSupportedType(n.nodeType, this.nodeTypes));
    if (missing.length) throw new UnsupportedNodeError(missing[0]!.node, missing[0]!.nodeType, missing.slice(1));
  }

  /** Whether the run's bundle holds the flow `flowId` (what a `subflow` node of the run may start). */
  hasFlow(run: RunState, flowId: string): boolean {
    const bundle = run.workflow_policy ? this.catalogBundle(run) : this.bundles.find(run.account, run.bundle_id, run.bundle_version)?.bundle;
    return bundle?.flows.has(flowId) === true;
  }

  private catalogBundle(run: RunState) {
    try {
      return this.catalog.bundleOf(run.workflow_policy!);
    } catch (err) {
      this.log.warn('catalog bundle unreadable', { run_id: run.run_id, bundle_ref: run.workflow_policy!.bundle_ref, error: (err as Error).message });
      return undefined;
    }
  }
}
