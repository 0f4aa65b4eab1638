/**
 * The scheduler: runs only in the process that executes runs (`launcher.whenExecuting`). It reads
 * the automations whose `wake_at` is due from the store's wake index, decides what each must do now
 * (misfire policy, serial, retries, stops, archive), records that in one transaction, then starts
 * the run through `runs.launcher` with the id it recorded (crash-safe: a retried launch finds the
 * run). Time comes from `core.clock` (tests inject a fake one); sleeps are real timers capped at
 * `scheduler.pollMs` and cut short by `nudge()`.
 */
import type { Clock, Logger, AuthService } from '@keel/plugin-sdk';
import type { EmittedEvent, LaunchTarget, RunHooks, RunLauncher, RunOutcome } from '@keel/plugin-gateway-runs';
import type { AutomationStore } from '../store/automation-store.js';
import type { TriggerSources } from '../triggers/trigger-sources.js';
import type { TimeSchedule } from '../triggers/trigger-source.js';
import type { AutomationRecord, CurrentOccurrence, PendingFire } from '../model.js';
import { AdmissionLimiter } from './admission-limiter.js';
import { decideDueTicks } from './misfire.js';
import type { OccurrenceLog } from './occurrence-log.js';
import { admitFire, cancelWithoutRun, endAttempt, markRunning, nextAttempt, recordSkipped, type TransitionClock } from './occurrence-transitions.js';
import type { SchedulerSettings } from './scheduler-settings.js';
import { scheduleStateOf } from './schedule-state.js';

export interface EngineDeps {
  store: AutomationStore;
  log: OccurrenceLog;
  sources: TriggerSources;
  launcher: RunLauncher;
  hooks: RunHooks;
  auth: AuthService;
  clock: Clock;
  logger: Logger;
  settings: SchedulerSettings;
}

/** What a step decided to do outside the transaction. */
interface StepEffects {
  launch: CurrentOccurrence | null;
  cancel: CurrentOccurrence | null;
}

export class AutomationEngine {
  private readonly limiter: AdmissionLimiter;
  private readonly locks = new Map<string, Promise<void>>();
  /** Automations with an attempt running, checked on every poll (runs that ended while no engine listened). */
  private readonly running = new Set<string>();
  private started = false;
  private stopped = false;
  private startedMs = 0;
  private lastReconcile = 0;
  /** Automations whose step threw, left alone until this (monotonic ms) so a broken record cannot spin the loop. */
  private readonly quarantine = new Map<string, number>();
  private wakeUp: (() => void) | null = null;
  /** A nudge arrived while the loop was not sleeping: the next sleep is skipped. */
  private nudged = false;
  private loopDone: Promise<void> | null = null;

  constructor(private readonly deps: EngineDeps) {
    this.limiter = new AdmissionLimiter(deps.settings.maxAdmissionsPerSecond);
  }

  /** Starts the loop once this process executes runs; registers the run-end and event listeners. */
  start(): void {
    this.deps.hooks.onRunEnded((run) => this.onRunEnded(run));
    this.deps.hooks.onEventEmitted((event) => this.onEventEmitted(event));
    this.deps.launcher.whenExecuting(() => {
      if (this.started || this.stopped) return;
      this.started = true;
      this.startedMs = this.deps.clock.nowMs();
      this.loopDone = this.loop();
    });
  }

  /** Looks at the wake index now (another part set a `wake_at` to now). */
  nudge(): void {
    this.nudged = true;
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.nudge();
    await this.loopDone;
    await Promise.all([...this.locks.values()]);
  }

  /** True once the loop runs in this process. */
  isRunning(): boolean {
    return this.started && !this.stopped;
  }

  private async loop(): Promise<void> {
    // Reconcile at start: every automation with a current occurrence is looked at once (ids read
    // first: no read transaction stays open across the steps).
    const withCurrent: string[] = [];
    for (const record of this.deps.store.all()) if (record.current) withCurrent.push(record.automation_id);
    for (const automationId of withCurrent) {
      if (this.stopped) return;
      await this.guarded(automationId);
    }
    while (!this.stopped) {
      const limited = await this.pass();
      await this.sleep(limited);
    }
  }

  /** One look: the due automations, then (at most once per pollMs) the running ones. True when the admission limit held some back. */
  private async pass(): Promise<boolean> {
    const now = this.deps.clock.nowMs();
    const due = this.deps.store.dueBy(new Date(now).toISOString(), this.deps.settings.batchSize);
    let limited = false;
    const steps: Promise<void>[] = [];
    for (const record of due) {
      if (this.stopped) break;
      if (this.limiter.waitMs() > 0 && this.wantsAdmission(record, now)) {
        limited = true;
        continue;
      }
      const heldUntil = this.quarantine.get(record.automation_id);
      if (heldUntil !== undefined) {
        if (performance.now() < heldUntil) {
          limited = true;
          continue;
        }
        this.quarantine.delete(record.automation_id);
      }
      // Different automations step concurrently (their transactions share commits); one automation's steps are serial.
      steps.push(this.guarded(record.automation_id));
    }
    await Promise.all(steps);
    if (performance.now() - this.lastReconcile >= this.deps.settings.pollMs) {
      this.lastReconcile = performance.now();
      await this.reconcileRunning();
    }
    return limited;
  }

  /** Current occurrences whose run ended while no run-end listener heard it (or whose run is gone). */
  private async reconcileRunning(): Promise<void> {
    const steps: Promise<void>[] = [];
    for (const automationId of [...this.running]) {
      if (this.stopped) break;
      const current = this.deps.store.get(automationId)?.current;
      if (!current || current.status !== 'running') {
        this.running.delete(automationId);
        continue;
      }
      const run = this.deps.launcher.outcome(current.run_id);
      if (!run || isEnded(run.status)) steps.push(this.guarded(automationId));
    }
    await Promise.all(steps);
  }

  private async sleep(limited: boolean): Promise<void> {
    if (this.stopped) return;
    if (this.nudged) {
      this.nudged = false;
      await new Promise((resolve) => setImmediate(resolve));
      return;
    }
    const { pollMs } = this.deps.settings;
    let ms = pollMs;
    const next = this.deps.store.nextWake();
    if (next) ms = Math.min(ms, Math.max(0, Date.parse(next) - this.deps.clock.nowMs()));
    // Held back (admission limit, a quarantined record): wait for the limit rather than spinning on a due wake_at.
    if (limited) ms = Math.max(ms, Math.min(pollMs, Math.max(10, this.limiter.waitMs())));
    if (ms <= 0) {
      await new Promise((resolve) => setImmediate(resolve));
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
    this.wakeUp = null;
    this.nudged = false;
  }

  /** Runs `step` for one automation, one at a time per automation (the loop, run ends and events share it). */
  private guarded(automationId: string, work: () => Promise<void> = () => this.step(automationId)): Promise<void> {
    const previous = this.locks.get(automationId) ?? Promise.resolve();
    const next = previous.then(work).catch((err: unknown) => {
      this.quarantine.set(automationId, performance.now() + this.deps.settings.pollMs);
      this.deps.logger.warn('automation step failed; it is looked at again after scheduler.pollMs', { automation_id: automationId, error: (err as Error).message ?? String(err) });
    });
    this.locks.set(automationId, next);
    void next.then(() => {
      if (this.locks.get(automationId) === next) this.locks.delete(automationId);
    });
    return next;
  }

  private wantsAdmission(record: AutomationRecord, nowMs: number): boolean {
    if (record.current) return record.current.status === 'admitted' || (record.current.status === 'backoff' && Date.parse(record.current.retry_at ?? '') <= nowMs);
    return record.pending.length > 0 || record.status === 'active';
  }

  private transitionClock(): TransitionClock {
    const nowMs = this.deps.clock.nowMs();
    return { nowMs, nowIso: new Date(nowMs).toISOString() };
  }

  /** Decides and records what the automation does now, then launches or cancels outside the transaction. */
  private async step(automationId: string): Promise<void> {
    const clock = this.transitionClock();
    const effects: StepEffects = { launch: null, cancel: null };
    const record = await this.deps.store.update(automationId, (stored) => {
      const next = structuredClone(stored);
      effects.launch = null;
      effects.cancel = null;
      this.plan(next, clock, effects);
      if (engineState(next) !== engineState(stored)) next.updated_at = clock.nowIso;
      return next;
    });
    if (!record) return;
    if (effects.cancel) await this.cancelRun(record, effects.cancel);
    if (effects.launch) await this.launch(record, effects.launch);
    if (record.current?.status === 'running' || effects.launch) this.running.add(automationId);
  }

  /** The decisions of one step, applied to `record` (a copy, inside the transaction). */
  private plan(record: AutomationRecord, clock: TransitionClock, effects: StepEffects): void {
    const { log } = this.deps;
    const schedule = this.scheduleOf(record);
    let limited = false;
    const admit = (): boolean => {
      if (this.limiter.tryTake()) return true;
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
    if (limited) wakes.push(clock.nowMs + Math.max(1, this.limiter.waitMs()));
    // Never due again at once: whatever is due now was handled by this step (or is held by the limit, above).
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
      engineStartedMs: this.startedMs,
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

  /** Starts the admitted attempt; a refusal (owner gone, workflow gone, active-run cap) ends the attempt as failed. */
  private async launch(record: AutomationRecord, current: CurrentOccurrence): Promise<void> {
    const { launcher, auth, log } = this.deps;
    const row = log.occurrence(record.automation_id, current.index);
    let failure: string | null = null;
    if (!row) failure = 'The occurrence record is missing.';
    const principal = auth.accountOf(record.account);
    if (!principal) failure = `The automation's owner account '${record.account}' no longer exists or is disabled.`;
    if (!failure && row) {
      const definition = this.deps.store.revision(record.automation_id, row.revision) ?? record.definition;
      try {
        await launcher.launch({
          principal: principal!,
          target: launchTargetOf(definition.target),
          inputData: structuredClone(row.input_data),
          runId: current.run_id,
          sessionId: row.session_id,
          tags: { session_kind: definition.context.mode === 'growing' ? 'automation' : 'occurrence', automation_id: record.automation_id, role: 'occurrence', occurrence_index: current.index },
        });
      } catch (err) {
        failure = (err as Error).message || 'The run could not start.';
      }
    }
    const clock = this.transitionClock();
    await this.deps.store.update(record.automation_id, (stored) => {
      if (stored.current?.run_id !== current.run_id || stored.current.status !== 'admitted') return undefined;
      const next = structuredClone(stored);
      if (failure) endAttempt(next, { status: 'failed', output: null, error: failure }, log, clock);
      else markRunning(next, log);
      if (failure) next.wake_at = next.current?.retry_at ?? clock.nowIso;
      next.updated_at = clock.nowIso;
      return next;
    });
    if (failure) this.deps.logger.info('an occurrence attempt could not start', { automation_id: record.automation_id, run_id: current.run_id, error: failure });
    else this.running.add(record.automation_id);
  }

  private async cancelRun(record: AutomationRecord, current: CurrentOccurrence): Promise<void> {
    try {
      await this.deps.launcher.cancel(record.account, current.run_id, `automation-stop:${current.stop_command_id}`, 'automation.stop_current');
    } catch (err) {
      this.deps.logger.warn('the cancel of an occurrence run failed', { automation_id: record.automation_id, run_id: current.run_id, error: (err as Error).message });
    }
  }

  private async onRunEnded(run: RunOutcome & { automation_id: string | null; role: string | null }): Promise<void> {
    if (!run.automation_id || run.role !== 'occurrence') return;
    const record = this.deps.store.get(run.automation_id);
    if (record?.current?.run_id !== run.run_id) return;
    await this.guarded(run.automation_id);
    this.nudge();
  }

  /** An emitted event fires every active automation of its account whose event trigger matches it, once per event. */
  private async onEventEmitted(event: EmittedEvent): Promise<void> {
    const { store, sources, log } = this.deps;
    let cursor: string | null = null;
    do {
      const page = store.listByOwner(event.account, { cursor, limit: 200, statuses: ['active'] });
      for (const record of page.items) {
        const binding = record.definition.trigger;
        const source = sources.get(binding.source_id, binding.source_version);
        if (source?.record.capabilities.kind !== 'event' || !source.matches?.(binding.config, event)) continue;
        const envelope = source.envelope?.(event) ?? { name: event.name, payload: event.payload };
        const clock = this.transitionClock();
        await this.guarded(record.automation_id, async () => {
          await store.update(record.automation_id, (stored) => {
            if (stored.status !== 'active' || log.eventFired(stored.automation_id, event.event_id)) return undefined;
            if (stored.pending.filter((fire) => fire.kind === 'event').length >= this.deps.settings.maxPendingEvents) {
              this.deps.logger.warn('an event was dropped: the automation has scheduler.maxPendingEvents events queued', { automation_id: stored.automation_id, event_id: event.event_id });
              return undefined;
            }
            log.putEventFired(stored.automation_id, event.event_id, clock.nowIso);
            const next = structuredClone(stored);
            next.pending.push({ kind: 'event', event_id: `${binding.source_id}@${binding.source_version}:${binding.binding_id}:${event.event_id}`, requested_at: clock.nowIso, envelope });
            if (!next.current) next.wake_at = clock.nowIso;
            next.updated_at = clock.nowIso;
            return next;
          });
        });
      }
      cursor = page.next_cursor;
    } while (cursor);
    this.nudge();
  }
}

/** What the engine changes that counts as an update of the automation (not its next wake time). */
function engineState(record: AutomationRecord): string {
  return JSON.stringify([record.status, record.current, record.pending.length, record.trigger_state, record.occurrence_count, record.attention_seq, record.archive_pending]);
}

function isEnded(status: RunOutcome['status']): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** A definition's concrete target as the launcher takes it (`bundle_ref` = `id@version`). */
export function launchTargetOf(target: AutomationRecord['definition']['target']): LaunchTarget {
  const at = target.bundle_ref.lastIndexOf('@');
  const launch: LaunchTarget = at > 0 ? { bundle_id: target.bundle_ref.slice(0, at), bundle_version: target.bundle_ref.slice(at + 1), flow_id: target.flow_id } : { bundle_id: target.bundle_ref, flow_id: target.flow_id };
  if (target.registry_scope === 'tenant_catalog') launch.registry_scope = 'tenant_catalog';
  return launch;
}
