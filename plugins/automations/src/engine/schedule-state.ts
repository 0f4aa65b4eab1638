/** A time trigger's state as stored on the record (armed on first use when the record has none yet). */
import type { AutomationRecord } from '../model.js';
import type { ScheduleState, TimeSchedule } from '../triggers/trigger-source.js';

export function scheduleStateOf(record: AutomationRecord, schedule: TimeSchedule): ScheduleState {
  const state = record.trigger_state as Partial<ScheduleState>;
  if (typeof state.tick === 'number' && typeof state.anchor === 'string') return state as ScheduleState;
  return schedule.arm();
}
