/**
 * `POST /automations/schedule-preview` (reference §3.5): the trigger normalised as a create would
 * store it (zone filled), its wording and its first run; nothing is stored. The next run is computed
 * only for time sources: the first tick, or now when the first tick is already due (it fires at once).
 */
import type { TriggerSources } from './trigger-sources.js';
import type { NormalisedTrigger } from './trigger-source.js';
import { firstRunSentence, localIso, scheduleRuleText, scheduleText, triggerZone } from './schedule-wording.js';

export interface SchedulePreview {
  trigger: NormalisedTrigger;
  time_zone: string;
  schedule_rule_text: string;
  schedule_text: string;
  next_run_at: string | null;
  next_run_local: string | null;
  first_run_sentence: string;
}

export function schedulePreview(sources: TriggerSources, trigger: unknown, ownerZone: string, nowMs: number): SchedulePreview {
  const normalised = sources.normalise(trigger, { nowMs, ownerZone });
  const zone = triggerZone(normalised, ownerZone);
  const schedule = sources.schedule(normalised);
  const first = schedule ? schedule.pending(schedule.arm()) : null;
  const nextMs = first === null ? null : Math.max(first.at_ms, nowMs);
  return {
    trigger: normalised,
    time_zone: zone,
    schedule_rule_text: scheduleRuleText(normalised, ownerZone, nowMs),
    schedule_text: scheduleText(normalised, ownerZone, nextMs, nowMs),
    next_run_at: nextMs === null ? null : new Date(nextMs).toISOString(),
    next_run_local: nextMs === null ? null : localIso(nextMs, zone),
    first_run_sentence: firstRunSentence(normalised, ownerZone, nextMs, nowMs),
  };
}
