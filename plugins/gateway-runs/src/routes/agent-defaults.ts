/**
 * Default agent workflows (seed 000 §2.1, §2.4; reference gateway-surfaces §6.3): what
 * `agents.default_workflow.<interface>` resolves to for a caller, or why it cannot run. One resolver
 * serves `flow_id: @default` starts (409 with the reason), the `GET /bundles` and
 * `GET /workflow-catalog` listings (`default_agent_workflows`, `..._unavailable`) and the
 * entrypoint rows' `is_agent_default`.
 */
import type { Principal } from '@keel/plugin-sdk';
import type { BundleRegistry } from '../bundles/bundle-registry.js';
import type { Bundle, Entrypoint } from '../bundles/read-bundle.js';
import { pickCatalogVersion } from '../catalog/catalog-pick.js';
import { actionsFor, policyOf, type WorkflowPolicy } from '../catalog/catalog-record.js';
import type { CatalogStore } from '../catalog/catalog-store.js';

/** The built-in values of the plugin config `defaultWorkflows` when it names none (`source: default`). */
export const BUILTIN_DEFAULT_WORKFLOWS: Record<string, string> = { 'abstractcode.agent.v1': 'keel-chat:keel-chat' };
export const FRAMEWORK_INTERFACES = ['abstractcode.agent.v1', 'abstractassistant.agent.v1'];
const ASSISTANT = 'abstractassistant.agent.v1';
export const VALUE = /^(?:(private|catalog):)?([A-Za-z0-9_-]+)(?:@([A-Za-z0-9_.-]+))?:(.+)$/;

/**
 * `agents.default_workflow.<interface>` values (`[private:|catalog:]bundle[@version]:flow`): the one an
 * admin saved (runtime setting, `source: stored`) wins over the built-in one (config, `source: default`).
 */
export interface DefaultWorkflowLookup {
  saved(iface: string): string | undefined;
  builtin(iface: string): string | undefined;
  /** Every interface with a saved or a built-in value. */
  interfaces(): string[];
}

/** Where workflows come from: the caller's bundles, the tenant catalog, and the default workflow settings. */
export interface WorkflowSources {
  bundles: BundleRegistry;
  catalog: CatalogStore;
  defaultWorkflows: DefaultWorkflowLookup;
  isAdmin(principal: Principal | null): boolean;
}

export interface AgentDefault {
  workflow_id: string;
  bundle_id: string;
  bundle_version: string;
  flow_id: string;
  registry_scope: 'private' | 'tenant_catalog';
  name: string;
  source: 'stored' | 'default';
}

export type AgentDefaultResolution =
  | { ok: true; workflow: AgentDefault; bundle: Bundle; policy: WorkflowPolicy | null }
  | { ok: false; source: 'stored' | 'default'; value: string | null; reason: string };

function settingOf(iface: string, sources: WorkflowSources): { value: string | null; source: 'stored' | 'default' } {
  const saved = sources.defaultWorkflows.saved(iface);
  if (saved !== undefined) return { value: saved, source: 'stored' };
  return { value: sources.defaultWorkflows.builtin(iface) ?? null, source: 'default' };
}

export function resolveAgentDefault(iface: string, principal: Principal, sources: WorkflowSources): AgentDefaultResolution {
  const { value, source } = settingOf(iface, sources);
  return resolveWorkflowValue(iface, value, source, principal, sources);
}

/** What one value of `agents.default_workflow.<iface>` resolves to for a caller (also the check of a value an admin saves). */
export function resolveWorkflowValue(iface: string, value: string | null, source: 'stored' | 'default', principal: Principal, sources: WorkflowSources): AgentDefaultResolution {
  const fail = (reason: string): AgentDefaultResolution => ({ ok: false, source, value, reason });
  if (value === null) {
    if (iface !== ASSISTANT) return fail(`no default workflow is set for ${iface} (an admin sets agents.default_workflow.${iface})`);
    const declaring = declaredInterfaces(principal, sources).filter((i) => i === ASSISTANT).length;
    return fail(declaring === 0
      ? `no host workflow declares ${ASSISTANT}; the Assistant uses its built-in orchestrator`
      : `no default is set for ${ASSISTANT} (${declaring} workflow(s) on this gateway declare it; an admin chooses one with agents.default_workflow.${ASSISTANT}); the Assistant uses its built-in orchestrator`);
  }
  const match = VALUE.exec(value);
  if (!match) return fail(`'${value}' is not a workflow reference; write [private:|catalog:]bundle[@version]:flow, e.g. keel-chat:keel-chat or coding-agent@0.2.7:coder`);
  const [, prefix, bundleId, version, flowId] = match as unknown as [string, string | undefined, string, string | undefined, string];
  let bundle: Bundle;
  let policy: WorkflowPolicy | null = null;
  if (prefix === 'catalog') {
    const pick = pickCatalogVersion(sources.catalog, principal, sources.isAdmin(principal), bundleId, version);
    if (!pick.ok) return fail(pick.reason);
    bundle = pick.bundle;
    policy = policyOf(pick.record, flowId);
  } else {
    const entry = sources.bundles.find(principal.account, bundleId, version);
    if (!entry) {
      const any = sources.bundles.list(principal.account).filter((e) => e.bundle.manifest.bundle_id === bundleId);
      return fail(any.length === 0
        ? `workflow bundle '${bundleId}' is not on this gateway`
        : `'${bundleId}' has no version ${version} on this gateway (it has ${any.map((e) => e.bundle.manifest.bundle_version).join(', ')})`);
    }
    bundle = entry.bundle;
  }
  const m = bundle.manifest;
  const ep = m.entrypoints.find((e) => e.flow_id === flowId);
  if (!ep) return fail(`'${m.bundle_id}@${m.bundle_version}' has no entrypoint '${flowId}' (it has ${m.entrypoints.map((e) => e.flow_id).join(', ')})`);
  if (!ep.interfaces.includes(iface)) {
    return fail(`'${m.bundle_id}@${m.bundle_version}:${flowId}' declares ${ep.interfaces.length ? ep.interfaces.join(', ') : 'no interface'}, not ${iface}`);
  }
  return {
    ok: true,
    bundle,
    policy,
    workflow: {
      workflow_id: `${m.bundle_id}@${m.bundle_version}:${flowId}`,
      bundle_id: m.bundle_id,
      bundle_version: m.bundle_version,
      flow_id: flowId,
      registry_scope: policy ? 'tenant_catalog' : 'private',
      name: ep.name ?? bundle.flows.get(flowId)?.flow.name ?? flowId,
      source,
    },
  };
}

/** The 409 sentence of a `@default` start whose setting cannot run (seed §7; reference §6.3). */
export function defaultWorkflowRefusal(iface: string, failure: Extract<AgentDefaultResolution, { ok: false }>): string {
  const setting = `agents.default_workflow.${iface}${failure.value === null ? '' : ` = '${failure.value}'`}`;
  const origin = failure.source === 'stored' ? 'stored, the saved setting' : 'default, the built-in default';
  return `The gateway default workflow for ${iface} cannot run: ${failure.reason} (setting ${setting}, source: ${origin}). An admin changes it with PUT /api/gateway/admin/runtime-config {"values": {"agents.default_workflow.${iface}": "<bundle[@version]:flow>"}}.`;
}

/** Interfaces that entrypoints the caller can run declare (its bundles, then the catalog records it may run). */
export function declaredInterfaces(principal: Principal, sources: WorkflowSources): string[] {
  const out: string[] = [];
  const add = (eps: Entrypoint[]) => eps.forEach((ep) => out.push(...ep.interfaces));
  for (const e of sources.bundles.list(principal.account)) add(e.bundle.manifest.entrypoints);
  const isAdmin = sources.isAdmin(principal);
  for (const r of sources.catalog.list('tenant_catalog', principal.tenant)) if (actionsFor(r, principal, isAdmin).can_run) add(r.entrypoints);
  return out;
}

export interface AgentDefaultsView {
  default_agent_workflows: Record<string, AgentDefault>;
  default_agent_workflows_unavailable: Record<string, { source: 'stored' | 'default'; value: string | null; reason: string }>;
}

/** `default_agent_workflows` and `default_agent_workflows_unavailable` for a caller (both listings carry them). */
export function agentDefaultsView(principal: Principal, sources: WorkflowSources): AgentDefaultsView {
  const view: AgentDefaultsView = { default_agent_workflows: {}, default_agent_workflows_unavailable: {} };
  for (const iface of listedInterfaces(principal, sources)) {
    const r = resolveAgentDefault(iface, principal, sources);
    if (r.ok) view.default_agent_workflows[iface] = r.workflow;
    else view.default_agent_workflows_unavailable[iface] = { source: r.source, value: r.value, reason: r.reason };
  }
  return view;
}

/** The interfaces listings and settings show: the framework ones, those with a value, those entrypoints declare (sorted). */
export function listedInterfaces(principal: Principal, sources: WorkflowSources): string[] {
  return [...new Set([...FRAMEWORK_INTERFACES, ...sources.defaultWorkflows.interfaces(), ...declaredInterfaces(principal, sources)])].sort();
}

/** An entrypoint row's `is_agent_default` and `agent_default_interfaces`. */
export function agentDefaultMarks(view: AgentDefaultsView, scope: AgentDefault['registry_scope'], bundleId: string, version: string, flowId: string) {
  const interfaces = Object.entries(view.default_agent_workflows)
    .filter(([, w]) => w.registry_scope === scope && w.bundle_id === bundleId && w.bundle_version === version && w.flow_id === flowId)
    .map(([iface]) => iface);
  return { is_agent_default: interfaces.length > 0, agent_default_interfaces: interfaces };
}
