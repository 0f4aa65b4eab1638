/**
 * The definitions side of the plugin (reference gateway-surfaces §3.3, §3.6, §3.7): create
 * (idempotent by `request_id`), list, read, revisions and commands, each for the calling account
 * only. The routes (routes/automation-routes.ts) and the `POST /commands` claim call it.
 */
import type { Clock, Logger, Principal } from '@keel/plugin-sdk';
import type { AutomationLimits } from './config.js';
import { canonicalJson, sha256 } from './commands/command-digest.js';
import { AutomationCommands, type CommandInput, type CommandReceipt } from './commands/automation-commands.js';
import { definitionOfCreate, type CreateRequest, type DefinitionDeps } from './definitions/definitions.js';
import { clientId } from './definitions/shape.js';
import { automationError, automationNotFound, invalidRequest } from './errors.js';
import { automationIdFor, isUuid } from './ids.js';
import { AUTOMATION_STATUSES, type AutomationDefinition, type AutomationRecord, type AutomationStatus } from './model.js';
import { decodeOwnerCursor, type AutomationStore } from './store/automation-store.js';
import { buildSummary, type SummaryReaders } from './summary/summary.js';
import type { TriggerSources } from './triggers/trigger-sources.js';

export interface AutomationsDeps {
  store: AutomationStore;
  triggers: TriggerSources;
  definitions: DefinitionDeps;
  readers: SummaryReaders;
  clock: Clock;
  limits: AutomationLimits;
  /** Each created automation and each applied command is logged (the reference's audit annotation `{automation: {automation_id, command}}`). */
  log: Logger;
  nudge(): void;
}

export interface ListQuery {
  status?: string;
  archived_only?: boolean;
  cursor?: string;
  limit?: number;
  changed_since?: string;
}

export interface CreateAnswer {
  automation_id: string;
  revision: number;
  summary: Record<string, unknown>;
}

export class Automations {
  readonly commands: AutomationCommands;

  constructor(private readonly deps: AutomationsDeps) {
    this.commands = new AutomationCommands({
      store: deps.store,
      triggers: deps.triggers,
      definitions: deps.definitions,
      clock: deps.clock,
      log: deps.log,
      nudge: deps.nudge,
      maxIdLength: deps.limits.maxIdLength,
      maxAutomationsPerAccount: deps.limits.maxAutomationsPerAccount,
    });
  }

  /**
   * `POST /automations`: the id is `uuid5(tenant:account:request_id)`; the same request again answers
   * the same automation, another request under the same `request_id` is 409 `identity_conflict`.
   */
  async create(owner: Principal, body: CreateRequest): Promise<CreateAnswer> {
    const requestId = clientId(body.request_id, 'request_id', this.deps.limits.maxIdLength);
    const automationId = automationIdFor(owner.tenant, owner.account, requestId);
    const digest = sha256(canonicalJson(body));
    const existing = this.deps.store.get(automationId);
    if (existing) return this.answer(sameRequest(existing, digest, requestId), owner);
    const nowMs = this.deps.clock.nowMs();
    const definition = definitionOfCreate(body, automationId, owner, nowMs, this.deps.definitions);
    const active = this.deps.store.countByOwner(owner.account) - this.deps.store.countByStatus(owner.account, 'archived');
    if (active >= this.deps.limits.maxAutomationsPerAccount) {
      throw automationError(409, 'invalid_state', `You have ${active} automations that are not archived, the most an account may have (setting limits.maxAutomationsPerAccount); archive one you no longer need first.`);
    }
    const { record, created } = await this.deps.store.create(this.newRecord(owner, requestId, digest, definition, nowMs));
    if (!created) return this.answer(sameRequest(record, digest, requestId), owner);
    this.deps.log.info('automation created', { automation: { automation_id: automationId, command: 'automation.create' }, account: owner.account });
    this.deps.nudge();
    return this.answer(record, owner);
  }

  private newRecord(owner: Principal, requestId: string, digest: string, definition: AutomationDefinition, nowMs: number): AutomationRecord {
    const now = new Date(nowMs).toISOString();
    // A time trigger is armed now, so the answer already names its next run; the engine looks at it at once.
    const schedule = this.deps.triggers.schedule(definition.trigger);
    const state = schedule?.arm();
    const next = schedule && state ? schedule.pending(state) : null;
    return {
      automation_id: definition.automation_id,
      account: owner.account,
      tenant: owner.tenant,
      request_id: requestId,
      request_digest: digest,
      definition,
      status: 'active',
      paused_reason: null,
      trigger_state: state ? { ...state } : {},
      next_fire_at: next ? next.scheduled_at : null,
      wake_at: now,
      current: null,
      pending: [],
      occurrence_count: 0,
      attention_seq: 0,
      command_seq: 0,
      archive_pending: false,
      created_at: now,
      updated_at: now,
    };
  }

  private answer(record: AutomationRecord, viewer: Principal): CreateAnswer {
    return { automation_id: record.automation_id, revision: record.definition.revision, summary: this.summary(record, viewer.account) };
  }

  summary(record: AutomationRecord, viewer: string): Record<string, unknown> {
    return buildSummary(record, viewer, this.deps.readers);
  }

  /** The caller's automation, or 404 `automation_not_found` (also for another account's and for ids that are no automation's). */
  owned(principal: Principal, automationId: string): AutomationRecord {
    const record = isUuid(automationId) ? this.deps.store.get(automationId) : undefined;
    if (!record || record.account !== principal.account) throw automationNotFound(automationId);
    return record;
  }

  /** `GET /automations/{id}`. */
  read(principal: Principal, automationId: string): { definition: AutomationDefinition; active_revision: number; summary: Record<string, unknown> } {
    const record = this.owned(principal, automationId);
    return { definition: record.definition, active_revision: record.definition.revision, summary: this.summary(record, principal.account) };
  }

  /** `GET /automations`: newest first; archived ones only when asked for. */
  list(principal: Principal, query: ListQuery): { items: Record<string, unknown>[]; next_cursor: string | null; archived_automations: number } {
    if (query.changed_since !== undefined) throw automationError(422, 'unsupported_feature', 'changed_since is not supported; page through the listing with cursor.', { field: 'changed_since' });
    const statuses = this.statusFilter(query);
    if (query.cursor !== undefined && !decodeOwnerCursor(query.cursor)) throw invalidRequest('cursor', 'cursor is not one this listing gave; start again without it.');
    const limit = query.limit ?? this.deps.limits.defaultPageSize;
    const page = this.deps.store.listByOwner(principal.account, { cursor: query.cursor ?? null, limit, statuses, maxScan: this.deps.limits.maxListScan });
    const items: Record<string, unknown>[] = [];
    for (const record of page.items) {
      // A record this version cannot summarise is left out, never failing the page.
      try {
        items.push(this.summary(record, principal.account));
      } catch {
        continue;
      }
    }
    return { items, next_cursor: page.next_cursor, archived_automations: this.deps.store.countByStatus(principal.account, 'archived') };
  }

  private statusFilter(query: ListQuery): AutomationStatus[] {
    if (query.archived_only && query.status !== undefined) throw invalidRequest('archived_only', 'archived_only cannot be combined with status; name archived in status instead.');
    if (query.archived_only) return ['archived'];
    if (query.status === undefined || query.status.trim() === '') return AUTOMATION_STATUSES.filter((s) => s !== 'archived');
    const named = query.status.split(',').map((s) => s.trim()).filter(Boolean);
    for (const status of named) {
      if (!(AUTOMATION_STATUSES as readonly string[]).includes(status)) throw invalidRequest('status', `status '${status.slice(0, 40)}' is not one of ${AUTOMATION_STATUSES.join(', ')}.`);
    }
    return [...new Set(named)] as AutomationStatus[];
  }

  /** `GET /automations/{id}/revisions`: every kept revision, newest first. */
  revisions(principal: Principal, automationId: string, query: { cursor?: string; limit?: number }): { items: AutomationDefinition[]; next_cursor: string | null; active_revision: number } {
    const record = this.owned(principal, automationId);
    let before: number | null = null;
    if (query.cursor !== undefined) {
      const match = /^rev1:([1-9][0-9]{0,8})$/.exec(query.cursor);
      if (!match) throw invalidRequest('cursor', 'cursor is not one this listing gave; start again without it.');
      before = Number(match[1]);
    }
    const limit = query.limit ?? this.deps.limits.defaultPageSize;
    const items = this.deps.store.revisionsOf(record.automation_id, { before, limit: limit + 1 });
    const more = items.length > limit;
    const page = more ? items.slice(0, limit) : items;
    return { items: page, next_cursor: more ? `rev1:${page[page.length - 1]!.revision}` : null, active_revision: record.definition.revision };
  }

  /** `POST /automations/{id}/commands` and the `automation.*` types of `POST /commands`. */
  command(principal: Principal, automationId: string, input: CommandInput): Promise<CommandReceipt> {
    return this.commands.apply(principal, automationId, input);
  }

  /** `PATCH /automations/{id}`: `automation.revise` with `{changes, expected_revision?}`. */
  revise(principal: Principal, automationId: string, body: { command_id: string; expected_revision?: unknown; changes: unknown }): Promise<CommandReceipt> {
    const payload: Record<string, unknown> = { changes: body.changes };
    if (body.expected_revision !== undefined) payload.expected_revision = body.expected_revision;
    return this.commands.apply(principal, automationId, { command_id: body.command_id, type: 'automation.revise', payload }, '');
  }

  /** Whether `id` names an automation of this account (POST /commands: run types aimed at it are refused). */
  isOwnAutomation(principal: Principal, id: string): boolean {
    if (!isUuid(id)) return false;
    return this.deps.store.get(id)?.account === principal.account;
  }
}

/** The stored automation when it was made by the same request, else 409 `identity_conflict`. */
function sameRequest(record: AutomationRecord, digest: string, requestId: string): AutomationRecord {
  if (record.request_digest !== digest) {
    throw automationError(409, 'identity_conflict', `request_id '${requestId.slice(0, 80)}' was already used for another automation request; send a new request_id.`, { field: 'request_id' });
  }
  return record;
}
