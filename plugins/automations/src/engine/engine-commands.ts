/**
 * What the commands of reference §3.7 change on the record for the engine to act on, as mutators
 * the command handlers call inside their `store.update` (then `engine.nudge()`): the engine owns
 * what these fields mean.
 */
import type { AutomationRecord } from '../model.js';
import type { TriggerSources } from '../triggers/trigger-sources.js';
import { scheduleStateOf } from './schedule-state.js';

/** `automation.run_now`: one manual fire at the engine's next look (also while paused; it stays paused). */
export function requestRunNow(record: AutomationRecord, commandId: string, nowIso: string): void {
  record.pending = [...record.pending, { kind: 'manual', event_id: `manual:${commandId}`, requested_at: nowIso, envelope: {}, command_id: commandId }];
  if (!record.current) record.wake_at = nowIso;
}

/** Whether `run_now` must answer 409 `automation_busy` (an occurrence or a manual run is pending). */
export function runNowBusy(record: AutomationRecord): boolean {
  return Boolean(record.current) || record.pending.some((fire) => fire.kind === 'manual');
}

/** `automation.stop_current`: cancels the current occurrence's run (or its pending retry); it ends `cancelled`, never retried. */
export function requestStop(record: AutomationRecord, commandId: string, nowIso: string): void {
  if (!record.current) return;
  record.current = { ...record.current, stop_command_id: commandId, cancel_sent: false };
  record.wake_at = nowIso;
}

/**
 * `automation.resume` and a revise that changed the trigger: the schedule re-arms at the first
 * tick after now (never catches up). `binding_changed` arms the new binding from its anchor first.
 */
export function rearmSchedule(record: AutomationRecord, sources: TriggerSources, nowMs: number, options: { binding_changed?: boolean } = {}): void {
  const schedule = sources.schedule(record.definition.trigger);
  if (!schedule) {
    record.trigger_state = {};
    record.next_fire_at = null;
    record.wake_at = record.current ? record.wake_at : new Date(nowMs).toISOString();
    return;
  }
  const state = options.binding_changed ? schedule.arm() : scheduleStateOf(record, schedule);
  record.trigger_state = { ...schedule.rearm(state, nowMs) };
  record.wake_at = new Date(nowMs).toISOString();
}

/** `automation.archive`: no more admissions; the current occurrence finishes, then the engine archives it. */
export function requestArchive(record: AutomationRecord, nowIso: string): void {
  record.pending = [];
  if (record.current) {
    record.archive_pending = true;
    record.wake_at = nowIso;
    return;
  }
  record.status = 'archived';
  record.archive_pending = false;
  record.definition = { ...record.definition, archived_at: nowIso };
  record.next_fire_at = null;
  record.wake_at = null;
}
