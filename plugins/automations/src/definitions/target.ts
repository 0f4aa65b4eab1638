/**
 * A definition's target (reference gateway-surfaces §3.3 "Target resolution"): a bundle entrypoint
 * (`bundle_ref` `id` or `id@version`, and `flow_id`) or `{flow_id: "@default", interface}`, resolved
 * NOW through the runs plugin's launcher (the same resolution as a run start) and stored concrete:
 * a version-less ref pins the version loaded now, `@default` becomes the workflow it names today.
 */
import { isHttpError, type Principal } from '@keel/plugin-sdk';
import type { LaunchTarget, LaunchedWorkflow, RunLauncher } from '@keel/plugin-gateway-runs';
import { automationError, invalidDefinition } from '../errors.js';
import type { AutomationTarget } from '../model.js';
import { protectInputData } from './input-protection.js';
import { strictObject, type Json } from './shape.js';

const TARGET_KEYS = ['bundle_ref', 'flow_id', 'interface', 'input_data', 'registry_scope'] as const;
const BUNDLE_REF = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,127})(?:@([A-Za-z0-9][A-Za-z0-9_.+-]{0,63}))?$/;
const INTERFACE = /^[A-Za-z0-9_.-]{1,128}$/;
// eslint-disable-next-line no-control-regex -- an entrypoint id is one line of printable text
const FLOW_ID = /^[^\u0000-\u001f]{1,256}$/u;

export interface ResolvedTarget {
  target: AutomationTarget;
  /** The workflow's display name (the default title). */
  name: string;
}

/** Checks a client's target, resolves it for the owner and protects its inputs. */
export function resolveTarget(input: unknown, owner: Principal, launcher: RunLauncher, maxInputBytes: number): ResolvedTarget {
  const raw = strictObject(input, 'target', TARGET_KEYS, 'invalid_definition');
  const launch = launchTargetOf(raw);
  const inputData = protectInputData(raw.input_data, maxInputBytes);
  const workflow = resolveWorkflow(launcher, owner, launch);
  if (launch.interface && workflow.registry_scope !== 'private' && workflow.registry_scope !== 'tenant_catalog') {
    throw automationError(422, 'unsupported_feature', `The default workflow of ${launch.interface} lives in the ${workflow.registry_scope} registry, which automations cannot run.`, { field: 'target.interface' });
  }
  return {
    name: workflow.name,
    target: {
      workflow_id: workflow.workflow_id,
      bundle_ref: `${workflow.bundle_id}@${workflow.bundle_version}`,
      flow_id: workflow.flow_id,
      registry_scope: workflow.registry_scope === 'tenant_catalog' ? 'tenant_catalog' : 'private',
      interface: workflow.interface ?? launch.interface ?? null,
      input_data: inputData,
    },
  };
}

/** The launcher's target for a stored (concrete) definition target. */
export function launchTargetOfStored(target: AutomationTarget): LaunchTarget {
  const [bundleId, version] = splitRef(target.bundle_ref);
  return { bundle_id: bundleId, ...(version ? { bundle_version: version } : {}), flow_id: target.flow_id, ...(target.registry_scope === 'tenant_catalog' ? { registry_scope: 'tenant_catalog' as const } : {}) };
}

function launchTargetOf(raw: Json): LaunchTarget {
  const flowId = raw.flow_id;
  if (typeof flowId !== 'string' || !FLOW_ID.test(flowId)) throw invalidDefinition('target.flow_id', 'target.flow_id is required: an entrypoint of the bundle, or "@default" with an interface.');
  const scope = raw.registry_scope;
  if (scope !== undefined && scope !== 'tenant_catalog') throw invalidDefinition('target.registry_scope', 'target.registry_scope may only be "tenant_catalog" (omit it for your private bundles).');
  if (flowId === '@default') {
    if (raw.bundle_ref !== undefined) throw invalidDefinition('target.bundle_ref', 'target.bundle_ref cannot be combined with flow_id "@default": the gateway chooses the workflow for the interface.');
    if (scope !== undefined) throw invalidDefinition('target.registry_scope', 'target.registry_scope cannot be combined with flow_id "@default".');
    if (typeof raw.interface !== 'string' || !INTERFACE.test(raw.interface)) throw invalidDefinition('target.interface', 'flow_id "@default" needs an interface, e.g. "chat.agent.v1".');
    return { flow_id: '@default', interface: raw.interface };
  }
  if (raw.interface !== undefined) throw invalidDefinition('target.interface', 'target.interface is only accepted with flow_id "@default".');
  if (typeof raw.bundle_ref !== 'string' || !BUNDLE_REF.test(raw.bundle_ref)) {
    throw invalidDefinition('target.bundle_ref', 'target.bundle_ref is required: a bundle id, or id@version.');
  }
  const [bundleId, version] = splitRef(raw.bundle_ref);
  return { bundle_id: bundleId, ...(version ? { bundle_version: version } : {}), flow_id: flowId, ...(scope ? { registry_scope: 'tenant_catalog' as const } : {}) };
}

function splitRef(ref: string): [string, string | undefined] {
  const at = ref.indexOf('@');
  return at < 0 ? [ref, undefined] : [ref.slice(0, at), ref.slice(at + 1)];
}

/**
 * The launcher's answer, its refusals reshaped: a `@default` that cannot run keeps its 409 (an
 * admin must fix the setting it names), permissions keep their 403, and a bundle or entrypoint
 * that is not there is the definition's fault (422 `invalid_definition` naming the field).
 */
function resolveWorkflow(launcher: RunLauncher, owner: Principal, target: LaunchTarget): LaunchedWorkflow {
  try {
    return launcher.resolve(owner, target);
  } catch (err) {
    if (!isHttpError(err) || err.status >= 500) throw err;
    if (err.status === 409 || err.status === 403 || err.status === 429) throw err;
    const field = target.interface ? 'target.interface' : /flow|entrypoint/i.test(err.message) ? 'target.flow_id' : 'target.bundle_ref';
    throw automationError(422, 'invalid_definition', err.message, { field, cause: err });
  }
}
