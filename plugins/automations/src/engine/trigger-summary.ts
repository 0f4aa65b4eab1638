/**
 * `trigger.summary` of an occurrence row (reference §3.8), from the binding in force at the
 * occurrence's revision, in the triggers' wording ("schedule: Every 30 minutes (UTC), tick 5",
 * "manual: run now (<command_id>)", ...).
 */
import type { OccurrenceRecord, TriggerBinding } from '../model.js';
import { occurrenceTriggerSummary } from '../triggers/schedule-wording.js';

export function triggerSummary(row: OccurrenceRecord, binding: TriggerBinding | null, ownerZone: string, nowMs: number): string {
  if (!binding) return row.trigger_kind === 'manual' ? `manual: run now (${row.command_id ?? ''})` : row.source;
  const fire: { kind: OccurrenceRecord['trigger_kind']; tick?: number; command_id?: string } = { kind: row.trigger_kind };
  if (row.tick !== null) fire.tick = row.tick;
  if (row.command_id) fire.command_id = row.command_id;
  return occurrenceTriggerSummary(binding, ownerZone, fire, nowMs);
}
