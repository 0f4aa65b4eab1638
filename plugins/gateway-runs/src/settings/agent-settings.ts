/**
 * The agent settings gateway-runs owns in the runtime-config store (seed 000 §2.4, §6 rule 1;
 * reference gateway-surfaces §6.3): `agents.default_workflow.<interface>` (a family, one key per
 * interface) and `agents.streaming_default`. The plugin config's values (`defaultWorkflows`,
 * `streamingDefault`) are the built-in defaults; a value an admin saves wins, and is read at each
 * start, so a change needs no restart.
 */
import { badRequest, KEY_ID_MAX_LENGTH, type Principal } from '@keel/plugin-sdk';
import { compareVersions } from '../bundles/bundle-registry.js';
import { actionsFor } from '../catalog/catalog-record.js';
import { listedInterfaces, resolveWorkflowValue, VALUE, type DefaultWorkflowLookup, type WorkflowSources } from '../routes/agent-defaults.js';
import type { RuntimeConfig, RuntimeConfigRow } from './runtime-config.js';

export const DEFAULT_WORKFLOW_PREFIX = 'agents.default_workflow.';
export const STREAMING_DEFAULT_KEY = 'agents.streaming_default';

/** The interfaces the gateway's own apps ask for with `@default`: they head the settings page (`group: apps`). */
const APP_INTERFACES: Record<string, { app: string; label: string; help: string }> = {
  'abstractcode.agent.v1': {
    app: 'code',
    label: 'Code agent',
    help: 'The workflow the Code app runs for a prompt sent with flow_id @default; it must declare abstractcode.agent.v1.',
  },
  'abstractassistant.agent.v1': {
    app: 'assistant',
    label: 'Assistant agent',
    help: 'The workflow the Assistant runs; with none set it uses its built-in orchestrator. It must declare abstractassistant.agent.v1.',
  },
};

/** The agent settings read from the store, over the plugin config's built-in values. */
export class AgentSettings {
  constructor(private readonly store: RuntimeConfig, private readonly builtinWorkflows: Record<string, string>, private readonly builtinStreaming: boolean) {}

  readonly defaultWorkflows: DefaultWorkflowLookup = {
    saved: (iface) => this.store.get(DEFAULT_WORKFLOW_PREFIX + iface) as string | undefined,
    builtin: (iface) => (Object.hasOwn(this.builtinWorkflows, iface) ? this.builtinWorkflows[iface] : undefined),
    interfaces: () => [...Object.keys(this.builtinWorkflows), ...Object.keys(this.store.savedUnder(DEFAULT_WORKFLOW_PREFIX)).map((k) => k.slice(DEFAULT_WORKFLOW_PREFIX.length))],
  };

  /** `agents.streaming_default` now: the saved value, else the config's. */
  streamingDefault(): boolean {
    const saved = this.store.get(STREAMING_DEFAULT_KEY);
    return typeof saved === 'boolean' ? saved : this.builtinStreaming;
  }

  /** Defines both settings in the store (the plugin's setup calls it once). */
  define(sources: WorkflowSources): void {
    this.store.define({
      key: DEFAULT_WORKFLOW_PREFIX,
      family: true,
      check: (value, key, principal) => this.checkWorkflow(value, key, principal, sources),
      rows: (principal) => this.workflowRows(principal, sources),
    });
    this.store.define({
      key: STREAMING_DEFAULT_KEY,
      check: (value) => {
        if (typeof value !== 'boolean') throw badRequest(`${STREAMING_DEFAULT_KEY} = ${JSON.stringify(value)} refused: the value is true or false (or null to go back to the built-in default).`, { code: 'invalid_setting', field: STREAMING_DEFAULT_KEY });
        return value;
      },
      rows: () => {
        const saved = this.store.get(STREAMING_DEFAULT_KEY);
        return [{
          key: STREAMING_DEFAULT_KEY,
          label: 'Stream token deltas by default',
          app: null,
          help: 'Whether a run whose start omits input_data._runtime.stream sends live token deltas (llm.delta events). Never applies to schedules.',
          group: 'other',
          state: typeof saved === 'boolean' ? 'set' : 'builtin',
          value: this.streamingDefault(),
          default: this.builtinStreaming,
          source: typeof saved === 'boolean' ? 'stored' : 'default',
          reason: null,
        }];
      },
    });
  }

  /** A value an admin saves must parse and resolve for the admin, declaring the interface; stored normalised. */
  private checkWorkflow(value: unknown, key: string, principal: Principal | undefined, sources: WorkflowSources): string {
    const iface = key.slice(DEFAULT_WORKFLOW_PREFIX.length);
    if (!iface || /\s/.test(iface)) throw badRequest(`'${key}' is not a setting: the interface id after ${DEFAULT_WORKFLOW_PREFIX} is non-empty and has no whitespace.`, { code: 'invalid_setting', field: key });
    if (typeof value !== 'string' || value.length > 2 * KEY_ID_MAX_LENGTH) {
      throw badRequest(`${key} = ${JSON.stringify(value)?.slice(0, 200)} refused: the value is a workflow reference string, [private:|catalog:]bundle[@version]:flow (or null to go back to the built-in default).`, { code: 'invalid_setting', field: key });
    }
    const refuse = (reason: string) => badRequest(`${key} = '${value}' refused: ${reason}.`, { code: 'invalid_setting', field: key });
    if (!principal) throw refuse('only an admin request can check it');
    const r = resolveWorkflowValue(iface, value.trim(), 'stored', principal, sources);
    if (!r.ok) throw refuse(r.reason);
    // The default serves every account: a bundle only the admin's own account holds would be broken for all the others.
    const w = r.workflow;
    if (w.registry_scope === 'private' && sources.bundles.find(principal.account, w.bundle_id, w.bundle_version)?.scope === 'private') {
      throw refuse(`'${w.bundle_id}@${w.bundle_version}' is a private bundle of account '${principal.account}', which other accounts cannot run; upload it to the shared bundle directory or publish it to the catalog first`);
    }
    const [, prefix, bundleId, version, flowId] = VALUE.exec(value.trim()) as unknown as [string, string | undefined, string, string | undefined, string];
    return `${prefix === 'catalog' ? 'catalog:' : ''}${bundleId}${version ? `@${version}` : ''}:${flowId}`;
  }

  /** One row per listed interface (seed §2.4): `state` set | broken (saved value), builtin | none (no saved value). */
  private workflowRows(principal: Principal, sources: WorkflowSources): RuntimeConfigRow[] {
    const eligible = eligibleEntrypoints(principal, sources);
    return listedInterfaces(principal, sources).map((iface) => {
      const saved = this.defaultWorkflows.saved(iface);
      const builtin = this.defaultWorkflows.builtin(iface) ?? null;
      const source = saved !== undefined ? 'stored' : 'default';
      const r = resolveWorkflowValue(iface, saved ?? builtin, source, principal, sources);
      const state = saved !== undefined ? (r.ok ? 'set' : 'broken') : r.ok ? 'builtin' : 'none';
      const app = APP_INTERFACES[iface];
      return {
        key: DEFAULT_WORKFLOW_PREFIX + iface,
        interface: iface,
        label: app?.label ?? iface,
        app: app?.app ?? null,
        help: app?.help ?? `The workflow a start with flow_id @default and interface ${iface} runs; it must declare ${iface}.`,
        group: app ? 'apps' : 'other',
        state,
        value: saved ?? builtin,
        reason: r.ok ? null : r.reason,
        source,
        default: builtin,
        resolved: r.ok ? r.workflow : null,
        eligible: eligible.filter((e) => e.interfaces.includes(iface)).map(({ interfaces: _, ...row }) => row),
      };
    });
  }
}

interface EligibleEntrypoint {
  value: string;
  workflow_id: string;
  bundle_id: string;
  bundle_version: string;
  flow_id: string;
  name: string;
  registry_scope: 'private' | 'tenant_catalog';
  interfaces: string[];
}

/** The latest version of each bundle the caller can run (its bundles first, then the catalog's default versions), one row per entrypoint. */
function eligibleEntrypoints(principal: Principal, sources: WorkflowSources): EligibleEntrypoint[] {
  const out: EligibleEntrypoint[] = [];
  const latest = new Map<string, ReturnType<WorkflowSources['bundles']['list']>[number]>();
  for (const e of sources.bundles.list(principal.account)) {
    const id = e.bundle.manifest.bundle_id;
    const held = latest.get(id);
    if (!held || compareVersions(e.bundle.manifest.bundle_version, held.bundle.manifest.bundle_version) > 0) latest.set(id, e);
  }
  for (const e of [...latest.values()].sort((a, b) => a.bundle.manifest.bundle_id.localeCompare(b.bundle.manifest.bundle_id))) {
    const m = e.bundle.manifest;
    for (const ep of m.entrypoints) {
      out.push({ value: `${m.bundle_id}:${ep.flow_id}`, workflow_id: `${m.bundle_id}@${m.bundle_version}:${ep.flow_id}`, bundle_id: m.bundle_id, bundle_version: m.bundle_version, flow_id: ep.flow_id, name: ep.name ?? ep.flow_id, registry_scope: 'private', interfaces: ep.interfaces });
    }
  }
  const isAdmin = sources.isAdmin(principal);
  for (const r of sources.catalog.list('tenant_catalog', principal.tenant)) {
    if (r.status !== 'published' || !actionsFor(r, principal, isAdmin).can_run) continue;
    if (sources.catalog.pointer('tenant_catalog', principal.tenant, r.bundle_id)?.default_version !== r.bundle_version) continue;
    for (const ep of r.entrypoints) {
      out.push({ value: `catalog:${r.bundle_id}:${ep.flow_id}`, workflow_id: `${r.bundle_id}@${r.bundle_version}:${ep.flow_id}`, bundle_id: r.bundle_id, bundle_version: r.bundle_version, flow_id: ep.flow_id, name: ep.name ?? ep.flow_id, registry_scope: 'tenant_catalog', interfaces: ep.interfaces });
    }
  }
  return out;
}
