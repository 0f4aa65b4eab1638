/** `POST /runs/start` (seed 000 §2.1, §7): every rule is a 400/404/409 with a sentence naming the field. */
import { randomUUID } from 'node:crypto';
import { badRequest, conflict, defineSchema, HttpError, notFound, KEY_ID_MAX_LENGTH, type Infer, type Principal } from '@keel/plugin-sdk';
import type { Bundle } from '../bundles/read-bundle.js';
import { pickCatalogVersion } from '../catalog/catalog-pick.js';
import { FRAMEWORK_RESERVED, policyOf, type CatalogRecord, type WorkflowPolicy } from '../catalog/catalog-record.js';
import { newRunState, type RunState } from '../runtime/run-state.js';
import { defaultWorkflowRefusal, resolveAgentDefault, type WorkflowSources } from './agent-defaults.js';
import { ALL_EXCEPT_IGNORED_REFUSED, workspaceRefused } from './start-workspace.js';
import { startWaitAnswerJson, startWaitJson } from './run-settled-wait.js';

/** The start request's fields (also the base of `POST /runs/schedule`). */
export const startProperties = {
    bundle_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH },
    bundle_version: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH },
    flow_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH },
    interface: { type: 'string', minLength: 1 },
    registry_scope: { type: 'string' },
    input_data: { type: 'object', default: {} },
    session_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH },
    kind: { type: 'string' },
    workspace: { type: 'object' },
    workspace_root: { type: 'string' },
    workspace_allowed_paths: { type: 'array', items: { type: 'string' } },
    workspace_access_mode: { type: 'string' },
} as const;

export const startBody = defineSchema({
  type: 'object',
  properties: { ...startProperties, wait: startWaitJson },
  examples: [
    { flow_id: '@default', interface: 'abstractcode.agent.v1', input_data: { prompt: 'What is the capital of Italy?', _runtime: { stream: true } } },
    { flow_id: '@default', interface: 'abstractcode.agent.v1', input_data: { prompt: 'What is the capital of Italy?' }, wait: { until: 'completed', timeout_s: 60 } },
  ],
});
export type StartBody = Infer<typeof startBody>;

/** `resolved_workflow` (seed 000 §2.1): what a start or schedule resolved its workflow to. */
const resolvedWorkflowJson = {
  type: 'object',
  required: ['workflow_id', 'bundle_id', 'bundle_version', 'flow_id', 'registry_scope', 'name', 'source', 'interface'],
  properties: {
    workflow_id: { type: 'string' }, bundle_id: { type: 'string' }, bundle_version: { type: 'string' }, flow_id: { type: 'string' },
    registry_scope: { type: 'string' }, name: { type: 'string' }, source: { enum: ['gateway_default', 'client'] }, interface: { type: ['string', 'null'] },
  },
} as const;

/** The answer of `POST /runs/start` (seed 000 §2.1); `POST /runs/schedule` adds its `schedule`. */
export const startAnswerJson = {
  type: 'object',
  required: ['run_id', 'runner_warning', 'resolved_workflow'],
  properties: { run_id: { type: 'string' }, runner_warning: { type: ['string', 'null'] }, resolved_workflow: resolvedWorkflowJson },
} as const;
/** With `wait`, the start's answer also carries the run and whether it settled in time (`run-settled-wait.ts`). */
export const startRunResponse = defineSchema({ ...startAnswerJson, properties: { ...startAnswerJson.properties, ...startWaitAnswerJson } });

export interface ResolvedWorkflow {
  workflow_id: string;
  bundle_id: string;
  bundle_version: string;
  flow_id: string;
  registry_scope: string;
  name: string;
  source: 'gateway_default' | 'client';
  interface: string | null;
}

export interface StartContext extends WorkflowSources {
  defaultBundleId: string | null;
}

/** What a start resolved: the bundle to run, the selection to record and, for a catalog version, its policy. */
export interface StartResolution {
  bundle: Bundle;
  resolved: ResolvedWorkflow;
  policy: WorkflowPolicy | null;
}

export function resolveStart(body: StartBody, principal: Principal, ctx: StartContext): StartResolution {
  if (body.kind !== undefined && (body.kind !== 'docs' || !body.session_id)) {
    throw badRequest(body.kind === 'docs' ? "kind 'docs' needs a session_id." : `kind '${body.kind}' is not accepted; only 'docs' (with a session_id) is.`, { code: 'invalid_request', field: 'body.kind' });
  }
  const runtime = body.input_data?._runtime;
  if (runtime !== undefined && runtime !== null && (typeof runtime !== 'object' || Array.isArray(runtime))) {
    throw badRequest('input_data._runtime must be an object of run settings, for example {"stream": true}.', { code: 'invalid_request', field: 'body.input_data._runtime' });
  }
  if (runtime && 'stream' in runtime && typeof runtime.stream !== 'boolean') {
    throw badRequest('input_data._runtime.stream must be a boolean.', { code: 'invalid_request', field: 'body.input_data._runtime.stream' });
  }
  // Refused before anything else is looked up (the service would refuse it too).
  if (body.workspace_access_mode === 'all_except_ignored') throw workspaceRefused(ALL_EXCEPT_IGNORED_REFUSED, null);
  if (body.registry_scope === 'framework_catalog') throw badRequest(`${FRAMEWORK_RESERVED}.`, { code: 'invalid_request', field: 'body.registry_scope' });
  if (body.registry_scope !== undefined && body.registry_scope !== 'tenant_catalog') {
    throw badRequest(`registry_scope '${body.registry_scope}' is unknown; omit it or use 'tenant_catalog'.`, { code: 'invalid_request', field: 'body.registry_scope' });
  }

  if (body.flow_id === '@default') {
    // A blank interface is no interface (seed §2.1: 400 without one); an interface id has no whitespace.
    if (!body.interface?.trim()) throw badRequest("flow_id '@default' needs an interface (for example abstractcode.agent.v1).", { code: 'invalid_request', field: 'body.interface' });
    if (/\s/.test(body.interface)) throw badRequest(`interface '${body.interface.slice(0, 100)}' is not an interface id: it has no whitespace (for example abstractcode.agent.v1).`, { code: 'invalid_request', field: 'body.interface' });
    if (body.bundle_id || body.bundle_version) {
      throw badRequest("bundle_id and bundle_version are not accepted with flow_id '@default'.", { code: 'invalid_request', field: body.bundle_id ? 'body.bundle_id' : 'body.bundle_version' });
    }
    // The setting decides the registry (a `catalog:` value runs a catalog version); the gateway never runs another workflow instead.
    const r = resolveAgentDefault(body.interface, principal, ctx);
    if (!r.ok) throw conflict(defaultWorkflowRefusal(body.interface, r), { code: 'default_workflow_unavailable' });
    const w = r.workflow;
    const resolved: ResolvedWorkflow = { workflow_id: w.workflow_id, bundle_id: w.bundle_id, bundle_version: w.bundle_version, flow_id: w.flow_id, registry_scope: w.registry_scope, name: w.name, source: 'gateway_default', interface: body.interface };
    return { bundle: r.bundle, policy: r.policy, resolved };
  }

  const bundleId = body.bundle_id ?? ctx.defaultBundleId;
  if (!bundleId) throw badRequest('bundle_id is required (no default_bundle_id is configured).', { code: 'invalid_request', field: 'body.bundle_id' });
  let bundle: Bundle;
  let record: CatalogRecord | null = null;
  if (body.registry_scope === 'tenant_catalog') {
    const pick = pickCatalogVersion(ctx.catalog, principal, ctx.isAdmin(principal), bundleId, body.bundle_version);
    if (!pick.ok) throw new HttpError(pick.status, `${capitalize(pick.reason)}.`, { code: pick.code, field: pick.status === 404 && body.bundle_version ? 'body.bundle_version' : undefined });
    bundle = pick.bundle;
    record = pick.record;
  } else {
    const entry = ctx.bundles.find(principal.account, bundleId, body.bundle_version);
    if (!entry) throw notFound(`Bundle '${bundleId}${body.bundle_version ? `@${body.bundle_version}` : ''}' is not installed.`, { code: 'bundle_not_found' });
    bundle = entry.bundle;
  }
  const manifest = bundle.manifest;
  let flowId = body.flow_id;
  if (flowId?.includes(':')) flowId = flowId.slice(flowId.lastIndexOf(':') + 1);
  if (!flowId) {
    flowId = manifest.entrypoints.length === 1 ? manifest.entrypoints[0]!.flow_id : manifest.default_entrypoint ?? undefined;
    if (!flowId) throw badRequest(`Bundle '${bundleId}' has several entrypoints and no default; give flow_id.`, { code: 'invalid_request', field: 'body.flow_id' });
  }
  if (!bundle.flows.has(flowId)) throw notFound(`Flow '${flowId}' is not in bundle ${manifest.bundle_id}@${manifest.bundle_version}.`, { code: 'flow_not_found' });
  return { bundle, policy: record ? policyOf(record, flowId) : null, resolved: describe(bundle, flowId, record ? 'tenant_catalog' : 'private', 'client', body.interface ?? null) };
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function describe(bundle: Bundle, flowId: string, scope: string, source: ResolvedWorkflow['source'], iface: string | null): ResolvedWorkflow {
  const m = bundle.manifest;
  const ep = m.entrypoints.find((e) => e.flow_id === flowId);
  return {
    workflow_id: `${m.bundle_id}@${m.bundle_version}:${flowId}`,
    bundle_id: m.bundle_id,
    bundle_version: m.bundle_version,
    flow_id: flowId,
    registry_scope: scope,
    name: ep?.name ?? bundle.flows.get(flowId)?.flow.name ?? flowId,
    source,
    interface: iface,
  };
}

/** `_runtime.stream` as the start asked, else the `agents.streaming_default` setting (seed §6 rule 1). */
function withStreamChoice(vars: Record<string, unknown>, streamingDefault: boolean): Record<string, unknown> {
  const runtime = { ...((vars._runtime ?? {}) as Record<string, unknown>) };
  if (typeof runtime.stream !== 'boolean') runtime.stream = streamingDefault;
  return { ...vars, _runtime: runtime };
}

/** The new root run: input_data carries the selection (replacing any client value) and the workspace choice. */
export function newRootRun(body: StartBody, account: string, { resolved, policy }: StartResolution, streamingDefault: boolean, runId: string = randomUUID()): RunState {
  const input: Record<string, unknown> = { ...(body.input_data ?? {}) };
  // A top-level one-off workspace moves into input_data (seed §2.1); what the gateway records is its own.
  if (body.workspace) input.workspace = body.workspace;
  delete input._gateway_workspace;
  input.workflow_selection = resolved;
  return newRunState({
    run_id: runId,
    account,
    workflow_id: resolved.workflow_id,
    bundle_id: resolved.bundle_id,
    bundle_version: resolved.bundle_version,
    flow_id: resolved.flow_id,
    vars: withStreamChoice(structuredClone(input), streamingDefault),
    input_data: input,
    session_id: body.session_id ?? runId,
    builtin: null,
    kind: body.kind === 'docs' ? 'docs' : 'conversation',
    workflow_policy: policy,
  });
}
