/**
 * Definitions from client requests (reference gateway-surfaces §3.2, §3.3, §3.7 revise): a create
 * body becomes revision 1, a revise's `changes` the next revision. Every part is checked before
 * anything is stored; the target is resolved for the owner through the runs plugin's launcher.
 */
import { randomUUID } from 'node:crypto';
import { HttpError, type Principal } from '@keel/plugin-sdk';
import type { RunLauncher } from '@keel/plugin-gateway-runs';
import { automationError, invalidRequest } from '../errors.js';
import type { AutomationDefinition, AutomationReasonCode, TriggerBinding } from '../model.js';
import type { TriggerSources } from '../triggers/trigger-sources.js';
import { parseContext, parseNotify, parsePolicy, parseTitle, titleFromName } from './policy.js';
import { isPlainObject, type Json } from './shape.js';
import { resolveTarget } from './target.js';

/** What building a definition needs. */
export interface DefinitionDeps {
  launcher: RunLauncher;
  triggers: TriggerSources;
  /** The owner's zone (a `schedule@2` trigger without `time_zone` gets it). */
  ownerZone(account: string): string;
  maxInputDataBytes: number;
}

/** The fields a revise may change (each replaced whole, except `policy`, whose fields merge). */
export const REVISABLE = ['title', 'target', 'trigger', 'context', 'policy'] as const;

export interface CreateRequest {
  request_id: string;
  title?: unknown;
  target: unknown;
  trigger?: unknown;
  context?: unknown;
  policy?: unknown;
  notify?: unknown;
}

/** Revision 1 of a new automation. */
export function definitionOfCreate(body: CreateRequest, automationId: string, owner: Principal, nowMs: number, deps: DefinitionDeps): AutomationDefinition {
  const { target, name } = resolveTarget(body.target, owner, deps.launcher, deps.maxInputDataBytes);
  if (body.trigger === undefined) {
    throw invalidRequest('trigger', 'Name a trigger: {source_id, source_version, config}, e.g. {"source_id": "manual", "source_version": 1, "config": {}} for runs on demand only (GET /api/gateway/trigger-sources lists them); Keel bundles publish no automation defaults.');
  }
  const createdAt = new Date(nowMs).toISOString();
  return {
    schema_version: 2,
    automation_id: automationId,
    revision: 1,
    title: body.title === undefined ? titleFromName(name) : parseTitle(body.title),
    target,
    trigger: bindTrigger(body.trigger, deps.triggers, { nowMs, ownerZone: deps.ownerZone(owner.account) }),
    context: parseContext(body.context),
    policy: parsePolicy(body.policy),
    notify: parseNotify(body.notify),
    session_id: `automation:${automationId}`,
    created_at: createdAt,
    archived_at: null,
  };
}

export interface RevisedDefinition {
  definition: AutomationDefinition;
  /** The trigger changed: a new binding, re-armed at the first tick after now. */
  triggerChanged: boolean;
}

/** Checks a revise's `changes` (422 `invalid_request` for its shape, the parts' own 422s for their values). */
export function checkChanges(changes: unknown, field = 'changes'): Json {
  if (!isPlainObject(changes) || Object.keys(changes).length === 0) {
    throw invalidRequest(field, `${field} must be a non-empty object with some of: ${REVISABLE.join(', ')}.`);
  }
  for (const key of Object.keys(changes)) {
    if (!(REVISABLE as readonly string[]).includes(key)) throw invalidRequest(`${field}.${key}`, `${field}.${key} cannot be revised (revisable: ${REVISABLE.join(', ')}).`);
  }
  return changes;
}

/**
 * The next revision: title, target, trigger and context replaced whole, policy fields merged into
 * the current policy. A `schedule@2` trigger without `time_zone` keeps the current binding's zone.
 */
export function definitionOfRevise(current: AutomationDefinition, changes: Json, owner: Principal, nowMs: number, deps: DefinitionDeps, field = 'changes'): RevisedDefinition {
  const next: AutomationDefinition = structuredClone(current);
  next.revision = current.revision + 1;
  if ('title' in changes) next.title = parseTitle(changes.title, `${field}.title`);
  if ('target' in changes) next.target = withPrefix(field, () => resolveTarget(changes.target, owner, deps.launcher, deps.maxInputDataBytes).target);
  if ('context' in changes) next.context = parseContext(changes.context, `${field}.context`);
  if ('policy' in changes) next.policy = parsePolicy(changes.policy, current.policy, `${field}.policy`);
  const triggerChanged = 'trigger' in changes;
  if (triggerChanged) {
    const zone = typeof current.trigger.config.time_zone === 'string' ? current.trigger.config.time_zone : deps.ownerZone(owner.account);
    next.trigger = withPrefix(field, () => bindTrigger(changes.trigger, deps.triggers, { nowMs, ownerZone: zone }));
  }
  return { definition: next, triggerChanged };
}

/** A trigger normalised by its source, with a new binding id. */
function bindTrigger(trigger: unknown, sources: TriggerSources, context: { nowMs: number; ownerZone: string }): TriggerBinding {
  return { binding_id: randomUUID(), ...sources.normalise(trigger, context) };
}

/** Runs a part's check whose refusals name fields from the definition's root (`target.flow_id`) under `prefix` (`changes.target.flow_id`). */
function withPrefix<T>(prefix: string, check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof HttpError && isPlainObject(err.detail) && typeof err.detail.field === 'string' && typeof err.detail.reason_code === 'string') {
      const detail = err.detail as { reason_code: AutomationReasonCode; message: string; field: string };
      throw automationError(err.status, detail.reason_code, detail.message, { field: `${prefix}.${detail.field}`, cause: err });
    }
    throw err;
  }
}
