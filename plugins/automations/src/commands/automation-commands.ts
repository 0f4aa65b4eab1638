/**
 * The seven `automation.*` commands (reference gateway-surfaces §3.7) behind `POST
 * /automations/{id}/commands`, `PATCH /automations/{id}` and `POST /commands`: the door checks in
 * the reference's order, then the state rules and the effect on the record, with the receipt, in
 * ONE store transaction (a command is applied when its receipt exists). The engine then acts on
 * what the record says (`engine-commands.ts` owns what those fields mean), woken by `nudge()`.
 *
 * `stop_current` marks the current occurrence (`stop_command_id`); the engine cancels its run
 * through `runs.launcher` (or drops its pending retry) and records it `cancelled`.
 */
import type { Clock, Logger, Principal } from '@keel/plugin-sdk';
import { automationError, automationNotFound, invalidRequest } from '../errors.js';
import { AUTOMATION_COMMAND_TYPES, type AutomationCommandType, type AutomationRecord, type CommandReceiptRecord } from '../model.js';
import type { AutomationStore, StoreTransaction } from '../store/automation-store.js';
import type { TriggerSources } from '../triggers/trigger-sources.js';
import type { ScheduleState } from '../triggers/trigger-source.js';
import { requestArchive, requestRunNow, requestStop, rearmSchedule, runNowBusy } from '../engine/engine-commands.js';
import { checkChanges, definitionOfRevise, type DefinitionDeps, type RevisedDefinition } from '../definitions/definitions.js';
import { clientId, isPlainObject, type Json } from '../definitions/shape.js';
import { isUuid } from '../ids.js';
import { commandDigest } from './command-digest.js';

export interface CommandReceipt {
  command_id: string;
  accepted: true;
  duplicate: boolean;
  seq: number;
}

export interface CommandsDeps {
  store: AutomationStore;
  triggers: TriggerSources;
  definitions: DefinitionDeps;
  clock: Clock;
  log: Logger;
  /** Wakes the engine (a no-op in a process without one: it reads the wake index every `pollMs`). */
  nudge(): void;
  maxIdLength: number;
  maxAutomationsPerAccount: number;
}

/** A command as a client sends it (the route's or POST /commands' body). */
export interface CommandInput {
  command_id: unknown;
  type: unknown;
  payload?: unknown;
}

const PAYLOAD_KEYS: Record<AutomationCommandType, readonly string[]> = {
  'automation.pause': ['reason', 'expected_revision'],
  'automation.resume': ['reason', 'expected_revision'],
  'automation.run_now': ['reason', 'expected_revision'],
  'automation.stop_current': ['reason', 'expected_revision'],
  'automation.archive': ['reason', 'expected_revision'],
  'automation.unarchive': ['reason', 'expected_revision'],
  'automation.revise': ['changes', 'expected_revision'],
};

export function isAutomationCommandType(type: unknown): type is AutomationCommandType {
  return typeof type === 'string' && (AUTOMATION_COMMAND_TYPES as readonly string[]).includes(type);
}

export class AutomationCommands {
  constructor(private readonly deps: CommandsDeps) {}

  /**
   * Applies one command. `payloadAt` is where the client wrote the payload's fields: `payload`
   * (the commands routes) or the body itself (`''`, PATCH), so refusals name the field it sent.
   */
  async apply(principal: Principal, automationId: string, input: CommandInput, payloadAt: 'payload' | '' = 'payload'): Promise<CommandReceipt> {
    const at = (key: string) => (payloadAt ? `${payloadAt}.${key}` : key);
    // 1. The command itself: a known type, an id, a payload object.
    if (!isAutomationCommandType(input.type)) {
      throw invalidRequest('type', `type must be one of ${AUTOMATION_COMMAND_TYPES.join(', ')}.`);
    }
    const type = input.type;
    const commandId = clientId(input.command_id, 'command_id', this.deps.maxIdLength);
    const payload = this.payloadOf(type, input.payload, commandId);
    // 2. The automation, in the caller's plane (another account's is not told apart from none).
    const record = isUuid(automationId) ? this.deps.store.get(automationId) : undefined;
    if (!record || record.account !== principal.account) throw automationNotFound(automationId);
    const digest = commandDigest(type, payload);
    // 3. An id already decided: the same command is a duplicate, another one a conflict.
    const decided = this.deps.store.receipt(automationId, commandId);
    if (decided) return duplicateOrConflict(decided, digest, commandId);
    // 4. Revisions: a revise's new definition is built (and its target resolved) before the transaction.
    const expected = this.expectedRevision(payload, at('expected_revision'), commandId);
    if (expected !== null) checkRevision(record, expected, commandId);
    const revised = type === 'automation.revise' ? this.revise(record, payload, principal, at('changes')) : null;
    const nowMs = this.deps.clock.nowMs();
    // What the transaction decided (set inside it).
    const decision: { receipt?: CommandReceiptRecord; duplicate?: CommandReceipt } = {};
    const stored = await this.deps.store.update(automationId, (current, tx) => {
      const raced = tx.receipt(automationId, commandId);
      if (raced) {
        decision.duplicate = duplicateOrConflict(raced, digest, commandId);
        return undefined;
      }
      if (expected !== null) checkRevision(current, expected, commandId);
      // The revise was built on `record`'s revision: another revise in between is a conflict.
      if (revised && current.definition.revision !== record.definition.revision) checkRevision(current, record.definition.revision, commandId);
      // 5. The state rules.
      this.checkState(current, type, commandId);
      // 6. Applied: the effect, the receipt.
      const next = structuredClone(current);
      const seq = current.command_seq + 1;
      this.effect(next, type, commandId, nowMs, revised, tx);
      next.command_seq = seq;
      next.updated_at = new Date(nowMs).toISOString();
      decision.receipt = { command_id: commandId, type, digest, seq, result: 'applied', reason_code: null, message: null, at: next.updated_at };
      tx.putReceipt(automationId, decision.receipt);
      return next;
    });
    if (decision.duplicate) return decision.duplicate;
    const receipt = decision.receipt;
    if (!stored || !receipt) throw automationNotFound(automationId);
    this.deps.log.info('automation command applied', { automation: { automation_id: automationId, command: type }, command_id: commandId, seq: receipt.seq, account: principal.account });
    this.deps.nudge();
    return { command_id: commandId, accepted: true, duplicate: false, seq: receipt.seq };
  }

  private payloadOf(type: AutomationCommandType, payload: unknown, commandId: string): Json {
    if (payload === undefined || payload === null) return {};
    if (!isPlainObject(payload)) throw automationError(422, 'invalid_request', 'payload must be an object.', { field: 'payload', command_id: commandId });
    const allowed = PAYLOAD_KEYS[type];
    for (const key of Object.keys(payload)) {
      if (!allowed.includes(key)) {
        throw automationError(422, 'invalid_request', `payload.${key} is not a field of ${type} (allowed: ${allowed.join(', ')}).`, { field: `payload.${key}`, command_id: commandId });
      }
    }
    if (payload.reason !== undefined && (typeof payload.reason !== 'string' || payload.reason.length > 1000)) {
      throw automationError(422, 'invalid_request', 'payload.reason must be a string of at most 1000 characters.', { field: 'payload.reason', command_id: commandId });
    }
    return payload;
  }

  private expectedRevision(payload: Json, field: string, commandId: string): number | null {
    const value = payload.expected_revision;
    if (value === undefined || value === null) return null;
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      throw automationError(422, 'invalid_request', `${field} must be an integer (the revision you read).`, { field, command_id: commandId });
    }
    return value;
  }

  private revise(record: AutomationRecord, payload: Json, principal: Principal, field: string): RevisedDefinition {
    const changes = checkChanges(payload.changes, field);
    return definitionOfRevise(record.definition, changes, principal, this.deps.clock.nowMs(), this.deps.definitions, field);
  }

  /** Reference §3.7 door check 5, in its order (all 409). */
  private checkState(record: AutomationRecord, type: AutomationCommandType, commandId: string): void {
    const refuse = (code: 'invalid_state' | 'automation_busy', message: string) => automationError(409, code, message, { command_id: commandId });
    const archived = record.status === 'archived' || record.archive_pending;
    if (type === 'automation.unarchive') {
      if (!archived) throw refuse('invalid_state', 'Automation is not archived.');
      if (this.activeCount(record.account) >= this.deps.maxAutomationsPerAccount && record.status === 'archived') {
        throw refuse('invalid_state', `You have ${this.deps.maxAutomationsPerAccount} automations that are not archived, the most an account may have (setting limits.maxAutomationsPerAccount); archive one before unarchiving this one.`);
      }
      return;
    }
    if (archived) {
      if (type === 'automation.archive') return;
      throw refuse('invalid_state', `Automation is archived; only ${'automation.unarchive'} (or archive again) applies.`);
    }
    if (record.status === 'completed' || record.status === 'failed') {
      if (type === 'automation.archive') return;
      throw refuse('invalid_state', `Automation is ${record.status}; it can only be archived.`);
    }
    if (type === 'automation.run_now') {
      if (runNowBusy(record)) throw refuse('automation_busy', 'An occurrence is running or a manual run is pending; run now again once it finished.');
      if (record.trigger_state.exhausted === true) throw refuse('invalid_state', 'The automation\'s trigger has no run left.');
    }
    if (type === 'automation.pause' && record.status === 'paused') throw refuse('invalid_state', 'Automation is already paused.');
    if (type === 'automation.resume' && record.status !== 'paused') throw refuse('invalid_state', 'Automation is not paused.');
    if (type === 'automation.stop_current' && !record.current) throw refuse('invalid_state', 'No occurrence is running or waiting to retry.');
  }

  private activeCount(account: string): number {
    return this.deps.store.countByOwner(account) - this.deps.store.countByStatus(account, 'archived');
  }

  /** The command's effect on the record (a copy, inside the transaction). */
  private effect(record: AutomationRecord, type: AutomationCommandType, commandId: string, nowMs: number, revised: RevisedDefinition | null, tx: StoreTransaction): void {
    const nowIso = new Date(nowMs).toISOString();
    switch (type) {
      case 'automation.pause':
        record.status = 'paused';
        record.wake_at = nowIso;
        break;
      case 'automation.resume':
        record.status = 'active';
        record.paused_reason = null;
        rearmSchedule(record, this.deps.triggers, nowMs);
        this.showNextFire(record);
        break;
      case 'automation.run_now':
        requestRunNow(record, commandId, nowIso);
        break;
      case 'automation.stop_current':
        requestStop(record, commandId, nowIso);
        break;
      case 'automation.archive':
        if (record.status !== 'archived' && !record.archive_pending) requestArchive(record, nowIso);
        break;
      case 'automation.unarchive':
        // Back to paused with its history; an archive still waiting for its occurrence is called off.
        record.status = 'paused';
        record.archive_pending = false;
        record.definition = { ...record.definition, archived_at: null };
        record.wake_at = nowIso;
        break;
      case 'automation.revise': {
        const next = revised!.definition;
        record.definition = next;
        tx.putRevision(next);
        if (revised!.triggerChanged) {
          rearmSchedule(record, this.deps.triggers, nowMs, { binding_changed: true });
          this.showNextFire(record);
        } else record.wake_at = nowIso;
        break;
      }
    }
  }

  /** The re-armed trigger's next tick, so the command's answer and the next read already show it (the engine keeps it up to date after). */
  private showNextFire(record: AutomationRecord): void {
    const schedule = this.deps.triggers.schedule(record.definition.trigger);
    const state = record.trigger_state as unknown as ScheduleState;
    record.next_fire_at = schedule && typeof state.tick === 'number' ? (schedule.pending(state)?.scheduled_at ?? null) : null;
  }
}

function checkRevision(record: AutomationRecord, expected: number, commandId: string): void {
  if (record.definition.revision !== expected) {
    throw automationError(409, 'revision_conflict', `Automation is at revision ${record.definition.revision}, not ${expected}.`, { command_id: commandId });
  }
}

function duplicateOrConflict(decided: CommandReceiptRecord, digest: string, commandId: string): CommandReceipt {
  if (decided.digest !== digest) {
    throw automationError(409, 'identity_conflict', `Command '${commandId}' was already used for another command on this automation; send a new command_id.`, { command_id: commandId });
  }
  return { command_id: commandId, accepted: true, duplicate: true, seq: decided.seq };
}
