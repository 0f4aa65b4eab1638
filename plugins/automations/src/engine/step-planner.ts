/**
 * What one automation does now, decided inside the store's transaction on a copy of its record:
 * the current occurrence (stop, retry after its backoff, relaunch after a crash, the end of its run),
 * then — nothing being current — archive, a pending fire, or the schedule's due ticks under the
 * misfire policy; finally `next_fire_at` and when to look again (`wake_at`). Launching and
 * cancelling happen outside the transaction, from the effects it returns.
 */
import type { Logger } from '@keel/plugin-sdk';
import type { RunLauncher, RunOutcome } from '@keel/plugin-gateway-runs';
import type { AutomationRecord, CurrentOccurrence, PendingFire } from '../model.js';
import type { TimeSchedule } from '../triggers/trigger-source.js';
import type { TriggerSources } from '../triggers/trigger-sources.js';
import type { AdmissionLimiter } from './admission-limiter.js';
import { decideDueTicks } from './misfire.js';
import type { OccurrenceLog } from './occurrence-log.js';
import { admitFire, cancelWithoutRun, endAttempt, nextAttempt, recordSkipped, type TransitionClock } from './occurrence-transitions.js';
import { scheduleStateOf } from './schedule-state.js';
import type { SchedulerSettings } from './scheduler-settings.js';

/** What a step decided to do outside the transaction. */
export interface StepEffects {
  launch: CurrentOccurrence | null;
  cancel: CurrentOccurrence | null;
}

export interface PlannerDeps {
  log: OccurrenceLog;
  sources: TriggerSources;
  launcher: RunLauncher;
  limiter: AdmissionLimiter;
  settings: SchedulerSettings;
  logger: Logger;
  /** When this scheduler started (ticks due before were missed while none ran). */
  startedMs: () => number;
}

export function isEnded(status: RunOutcome['status']): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

export class StepPlanner {
  constructor(private readonly deps: PlannerDeps) {}

  /** The decisions of one step, applied to `record` (a copy, inside the transaction). */
  plan(record: AutomationRecord, clock: TransitionClock, effects: StepEffects): void {
    const { log } = this.deps;
    const schedule = this.scheduleOf(record);
    let limited = false;
    const admit = (): boolean => {
      if (this.deps.limiter.tryTake()) return true;
      limited = true;
      return false;
    };

    // 1. The current occurrence: stop, retry, relaunch after a crash, or notice its run ended.
    const current = record.current;
    if (current) {
      if (current.stop_command_id && (current.status === 'backoff' || (current.status === 'admitted' && !this.deps.launcher.outcome(current.run_id)))) {
        cancelWithoutRun(record, log, clock);
      } else if (current.stop_command_id && !current.cancel_sent) {
        record.current = { ...current, cancel_sent: true };
        effects.cancel = record.current;
      } else if (current.status === 'backoff' && Date.parse(current.retry_at ?? '') <= clock.nowMs) {
        if (admit()) effects.launch = nextAttempt(record, log);
      } else if (current.status === 'admitted') {
        effects.launch = current;
      } else if (current.status === 'running') {
        const run = this.deps.launcher.outcome(current.run_id);
        if (run && isEnded(run.status)) endAttempt(record, run, log, clock);
        else if (!run) endAttempt(record, { status: 'failed', output: null, error: 'The occurrence run no longer exists.' }, log, clock);
      }
    }

    // 2. Nothing current: archive, a pending fire (run_now works while paused), or the schedule's due ticks.
    if (!record.current && !effects.launch) {
      if (record.archive_pending) {
        record.status = 'archived';
        record.archive_pending = false;
        record.definition = { ...record.definition, archived_at: record.definition.archived_at ?? clock.nowIso };
        record.pending = [];
      } else {
        const index = record.pending.findIndex((fire) => fire.kind === 'manual' || record.status === 'active');
        if (index >= 0 && (record.status === 'active' || record.status === 'paused')) {
          if (admit()) {
            const [fire] = record.pending.splice(index, 1);
            effects.launch = admitFire(record, fire!, log, clock, { tick: null, scheduled_at: null, coalesced: null });
          }
        } else if (record.status === 'active' && schedule) {
          this.applyDueTicks(record, schedule, clock, false, admit, effects);
        }
      }
    } else if (record.status === 'active' && schedule && record.definition.policy.misfire === 'skip') {
      // Serial under `skip`: ticks that come due while an occurrence is current are skipped at once.
      this.applyDueTicks(record, schedule, clock, true, admit, effects);
    }

    // 3. A time trigger with no tick left and nothing to do: the automation completed.
    const state = schedule ? scheduleStateOf(record, schedule) : null;
    if (schedule && state?.exhausted && record.status === 'active' && !record.current && !effects.launch && record.pending.length === 0) {
      record.status = 'completed';
    }

    // 4. When to look again.
    const pendingTick = schedule && state && record.status === 'active' ? schedule.pending(state) : null;
    record.next_fire_at = pendingTick ? pendingTick.scheduled_at : null;
    const wakes: number[] = [];
    const busy = Boolean(record.current) || Boolean(effects.launch);
    if (record.current?.status === 'backoff' && record.current.retry_at) wakes.push(Date.parse(record.current.retry_at));
    if (record.current?.stop_command_id && !record.current.cancel_sent) wakes.push(clock.nowMs);
    const canFire = record.status === 'active' || record.status === 'paused';
    if (!busy && (record.archive_pending || (canFire && record.pending.some((fire) => fire.kind === 'manual' || record.status === 'active')))) wakes.push(clock.nowMs);
    if (pendingTick && (!busy || record.definition.policy.misfire === 'skip')) wakes.push(Math.max(pendingTick.at_ms, busy ? clock.nowMs + 1 : 0));
    if (limited) {
      // Held by the admission limit: it stays due; the loop waits for the limit (real time) before the next look.
      record.wake_at = clock.nowIso;
      return;
    }
    // Never due again at once: whatever is due now was handled by this step.
    record.wake_at = wakes.length ? new Date(Math.max(Math.min(...wakes), clock.nowMs + 1)).toISOString() : null;
  }

  /** Applies the misfire policy to the schedule's due ticks (skipped rows, at most one admission). */
  private applyDueTicks(record: AutomationRecord, schedule: TimeSchedule, clock: TransitionClock, busy: boolean, admit: () => boolean, effects: StepEffects): void {
    const { log, settings } = this.deps;
    const state = scheduleStateOf(record, schedule);
    const due = schedule.due(state, clock.nowMs, 1);
    if (!due) return;
    const lastRun = log.lastRun(record.automation_id, 5);
    const decision = decideDueTicks({
      policy: record.definition.policy.misfire,
      due: { first: due.first.tick, last: due.latest.tick, firstAtMs: due.first.at_ms, lastAtMs: due.latest.at_ms },
      nowMs: clock.nowMs,
      busy,
      maxCatchUp: settings.maxCatchUp,
      graceMs: settings.misfireGraceMs,
      engineStartedMs: this.deps.startedMs(),
      lastFinishedMs: lastRun?.finished_at ? Date.parse(lastRun.finished_at) : null,
    });
    if (decision.fire && !admit()) return;
    if (decision.skipped) recordSkipped(record, decision.skipped, log, clock, schedule.tickAt(decision.skipped.last_tick)?.scheduled_at ?? null);
    record.trigger_state = { ...schedule.advance(state, decision.nextTick - 1, decision.fire ? 1 : 0) };
    if (decision.fire) {
      const tick = schedule.tickAt(decision.fire.tick)!;
      const binding = record.definition.trigger;
      const fire: PendingFire = {
        kind: 'schedule',
        event_id: `${binding.source_id}@${binding.source_version}:${binding.binding_id}:${tick.tick}`,
        requested_at: clock.nowIso,
        envelope: { tick: tick.tick, scheduled_at: tick.scheduled_at },
      };
      effects.launch = admitFire(record, fire, log, clock, { tick: tick.tick, scheduled_at: tick.scheduled_at, coalesced: decision.fire.coalesced });
    }
  }

  private scheduleOf(record: AutomationRecord): TimeSchedule | undefined {
    try {
      return this.deps.sources.schedule(record.definition.trigger);
    } catch (err) {
      this.deps.logger.warn('an automation trigger could not be compiled', { automation_id: record.automation_id, error: (err as Error).message });
      return undefined;
    }
  }
}
