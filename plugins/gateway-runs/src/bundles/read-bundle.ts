/**
 * Reads a `.flow` bundle (reference §1): a zip with `manifest.json` and `flows/<id>.json`.
 * Every problem is named (`manifest.json: bundle_format_version must be "1"`), so an upload
 * that fails says what to fix.
 */
import { strFromU8 } from 'fflate';
import { textExceedsJsonDepth } from '@keel/plugin-sdk';
import { BundleError } from './bundle-error.js';
import { DEFAULT_BUNDLE_LIMITS, unzipBounded, type BundleLimits } from './bounded-unzip.js';
import { compileFlow, type CompiledFlow } from '../flow/compile-flow.js';
import type { VisualFlow } from '../flow/visualflow.js';

export interface Entrypoint {
  flow_id: string;
  name: string | null;
  description: string;
  interfaces: string[];
}

export interface Manifest {
  bundle_format_version: '1';
  bundle_id: string;
  bundle_version: string;
  created_at: string | null;
  entrypoints: Entrypoint[];
  default_entrypoint: string | null;
  flows: Record<string, string>;
  metadata: Record<string, unknown>;
}

export interface Bundle {
  manifest: Manifest;
  flows: Map<string, CompiledFlow>;
}

export { BundleError };
export { BundleTooLarge, DEFAULT_BUNDLE_LIMITS, type BundleLimits } from './bounded-unzip.js';

const ID = /^[A-Za-z0-9_-]+$/;
const VERSION = /^[A-Za-z0-9_.-]+$/;

/** Reads a bundle within `limits` (inflated size and entry count; see bounded-unzip.ts). */
export function readBundle(bytes: Uint8Array, limits: BundleLimits = DEFAULT_BUNDLE_LIMITS): Bundle {
  return bundleFromFiles(unzipBounded(bytes, limits), limits);
}

/** The bundle held by an archive's unzipped entries (by name). */
export function bundleFromFiles(files: Map<string, Uint8Array>, limits: BundleLimits = DEFAULT_BUNDLE_LIMITS): Bundle {
  const { maxJsonDepth } = limits;
  const manifestBytes = files.get('manifest.json');
  if (!manifestBytes) throw new BundleError('manifest.json is missing');
  const raw = parseJson(manifestBytes, 'manifest.json', maxJsonDepth) as Record<string, unknown>;
  const manifest = normalizeManifest(raw);
  const flows = new Map<string, CompiledFlow>();
  for (const [flowId, rel] of Object.entries(manifest.flows)) {
    if (rel.includes('..') || rel.startsWith('/')) throw new BundleError(`manifest.json: flows.${flowId} path '${rel}' must be relative and stay inside the bundle`);
    const data = files.get(rel);
    if (!data) throw new BundleError(`${rel} (flow '${flowId}') is missing from the bundle`);
    const flow = parseJson(data, rel, maxJsonDepth) as VisualFlow;
    refuseLargeFlow(flow, rel, limits);
    refuseMalformedFlow(flow, rel);
    try {
      flows.set(flowId, compileFlow({ ...flow, id: flow.id ?? flowId }));
    } catch (err) {
      throw new BundleError(`${rel}: ${(err as Error).message}`);
    }
  }
  for (const ep of manifest.entrypoints) if (!flows.has(ep.flow_id)) throw new BundleError(`manifest.json: entrypoint '${ep.flow_id}' has no flow file`);
  return { manifest, flows };
}

/** Compiling and running a flow scan its edges for each node: a flow over the limits would hold the event loop for seconds. */
function refuseLargeFlow(flow: VisualFlow, name: string, limits: BundleLimits): void {
  const nodes = Array.isArray(flow?.nodes) ? flow.nodes.length : 0;
  const edges = Array.isArray(flow?.edges) ? flow.edges.length : 0;
  if (nodes > limits.maxFlowNodes) throw new BundleError(`${name} has ${nodes} nodes, more than the ${limits.maxFlowNodes} one flow may have (gateway-runs setting bundleLimits.maxFlowNodes); split it into subflows`);
  if (edges > limits.maxFlowEdges) throw new BundleError(`${name} has ${edges} edges, more than the ${limits.maxFlowEdges} one flow may have (gateway-runs setting bundleLimits.maxFlowEdges); split it into subflows`);
}

/** The shape compiling relies on, refused with a sentence naming the place (not a TypeError from deep inside). */
function refuseMalformedFlow(flow: VisualFlow, name: string): void {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(flow)) throw new BundleError(`${name} must hold a JSON object (a VisualFlow)`);
  if (!Array.isArray(flow.nodes)) throw new BundleError(`${name}: nodes must be a list`);
  flow.nodes.forEach((node: unknown, i: number) => {
    if (!isObject(node) || typeof node.id !== 'string' || !node.id) throw new BundleError(`${name}: nodes[${i}] must be an object with a non-empty string id`);
    if (!isObject(node.data)) throw new BundleError(`${name}: nodes[${i}] ('${node.id}') must have a data object`);
  });
  if (flow.edges !== undefined && !Array.isArray(flow.edges)) throw new BundleError(`${name}: edges must be a list`);
  (flow.edges ?? []).forEach((edge: unknown, i: number) => {
    if (!isObject(edge) || typeof edge.source !== 'string' || typeof edge.target !== 'string') throw new BundleError(`${name}: edges[${i}] must be an object with string source and target`);
  });
}

function normalizeManifest(raw: Record<string, unknown>): Manifest {
  const format = raw.bundle_format_version ?? raw.bundleFormatVersion;
  if (format !== '1') throw new BundleError(`manifest.json: bundle_format_version must be "1" (got ${JSON.stringify(format ?? null)})`);
  const bundleId = raw.bundle_id ?? raw.bundleId;
  if (typeof bundleId !== 'string' || !ID.test(bundleId)) throw new BundleError('manifest.json: bundle_id must be a non-empty string of letters, digits, _ and -');
  const version = (raw.bundle_version ?? raw.bundleVersion ?? '0.0.0') as string;
  if (typeof version !== 'string' || !VERSION.test(version)) throw new BundleError('manifest.json: bundle_version may hold letters, digits, _, . and - only');
  const eps = raw.entrypoints;
  if (!Array.isArray(eps) || eps.length === 0) throw new BundleError('manifest.json: entrypoints must be a non-empty list');
  const seen = new Set<string>();
  const entrypoints = eps.map((e, i) => {
    const ep = e as Record<string, unknown>;
    const flowId = ep.flow_id ?? ep.flowId;
    if (typeof flowId !== 'string' || !flowId) throw new BundleError(`manifest.json: entrypoints[${i}].flow_id is required`);
    if (seen.has(flowId)) throw new BundleError(`manifest.json: entrypoint '${flowId}' is listed twice`);
    seen.add(flowId);
    return { flow_id: flowId, name: typeof ep.name === 'string' ? ep.name : null, description: typeof ep.description === 'string' ? ep.description : '', interfaces: Array.isArray(ep.interfaces) ? ep.interfaces.map(String) : [] };
  });
  const def = (raw.default_entrypoint ?? raw.defaultEntrypoint ?? raw.default_entrypoint_flow_id ?? null) as string | null;
  if (def !== null && !seen.has(def)) throw new BundleError(`manifest.json: default_entrypoint '${def}' is not one of the entrypoints`);
  const flows = (raw.flows ?? Object.fromEntries(entrypoints.map((e) => [e.flow_id, `flows/${e.flow_id}.json`]))) as Record<string, string>;
  return {
    bundle_format_version: '1',
    bundle_id: bundleId,
    bundle_version: version,
    created_at: typeof raw.created_at === 'string' ? raw.created_at : null,
    entrypoints,
    default_entrypoint: def,
    flows,
    metadata: (raw.metadata ?? {}) as Record<string, unknown>,
  };
}

function parseJson(bytes: Uint8Array, name: string, maxDepth: number): unknown {
  const text = strFromU8(bytes);
  // Compiling, storing and running a flow walk its values recursively: a deeper one would overflow the stack.
  if (textExceedsJsonDepth(text, maxDepth)) throw new BundleError(`${name} nests arrays and objects more than ${maxDepth} levels deep (gateway-runs setting bundleLimits.maxJsonDepth); flatten it`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new BundleError(`${name} is not valid JSON (${(err as Error).message})`);
  }
}
