/**
 * The scheduler: runs only in the process that executes runs (`launcher.whenExecuting`). It reads
 * the automations whose `wake_at` is due from the store's wake index, decides what each must do now
 * (misfire policy, serial, retries, stops, archive), records that in one transaction, then starts
 * the run through `runs.launcher` with the id it recorded (crash-safe: a retried launch finds the
 * run). Time comes from `core.clock` (tests inject a fake one); sleeps are real timers capped at
 * `scheduler.pollMs` and cut short by `nudge()`.
 */
import { isHttpError, type Clock, type Logger, type AuthService } from '@keel/plugin-sdk';
import type { EmittedEvent, LaunchTarget, RunHooks, RunLauncher, RunOutcome } from '@keel/plugin-gateway-runs';
import type { AutomationStore } from '../store/automation-store.js';
import type { TriggerSources } from '../triggers/trigger-sources.js';
import type { AutomationRecord, CurrentOccurrence } from '../model.js';
import { AdmissionLimiter } from './admission-limiter.js';
import type { OccurrenceLog } from './occurrence-log.js';
import { endAttempt, markRunning, type TransitionClock } from './occurrence-transitions.js';
import type { SchedulerSettings } from './scheduler-settings.js';
import { isEnded, StepPlanner, type StepEffects } from './step-planner.js';

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

/** The longest an automation whose step keeps failing is left alone between two tries. */
const MAX_HOLD_BACK_MS = 10 * 60_000;

export class AutomationEngine {
  private readonly limiter: AdmissionLimiter;
  private readonly planner: StepPlanner;
  private readonly locks = new Map<string, Promise<void>>();
  /** Automations with an attempt running, checked on every poll (runs that ended while no engine listened). */
  private readonly running = new Set<string>();
  private started = false;
  private stopped = false;
  private startedMs = 0;
  private lastReconcile = 0;
  /** Automations whose step threw, left alone until this (monotonic ms) so a broken record cannot spin the loop. */
  private readonly quarantine = new Map<string, number>();
  /** Steps in a row that threw, per automation: the hold-back doubles with each (capped at MAX_HOLD_BACK_MS). */
  private readonly failures = new Map<string, number>();
  private wakeUp: (() => void) | null = null;
  /** A nudge arrived while the loop was not sleeping: the next sleep is skipped. */
  private nudged = false;
  private loopDone: Promise<void> | null = null;

  constructor(private readonly deps: EngineDeps) {
    this.limiter = new AdmissionLimiter(deps.settings.maxAdmissionsPerSecond);
    this.planner = new StepPlanner({ ...deps, limiter: this.limiter, startedMs: () => this.startedMs });
  }

  /** Starts the loop once this process executes runs; registers the run-end and event listeners. */
  start(): void {
    // Told only in the process that executes runs (where the loop runs); nothing once stopped.
    this.deps.hooks.onRunEnded((run) => (this.stopped ? undefined : this.onRunEnded(run)));
    this.deps.hooks.onEventEmitted((event) => (this.stopped ? undefined : this.onEventEmitted(event)));
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
      await this.guarded(automationId, () => this.step(automationId, { atStart: true }));
    }
    while (!this.stopped) {
      let limited: boolean;
      try {
        limited = await this.pass();
      } catch (err) {
        // Never the end of the scheduler (nor an unhandled rejection): the next look tries again.
        this.deps.logger.warn('a scheduler look failed; it looks again after scheduler.pollMs', { error: (err as Error)?.message ?? String(err) });
        limited = true;
      }
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
    const next = previous.then(work).then(
      () => {
        this.failures.delete(automationId);
      },
      (err: unknown) => this.holdBack(automationId, err),
    );
    this.locks.set(automationId, next);
    void next.then(() => {
      if (this.locks.get(automationId) === next) this.locks.delete(automationId);
    });
    return next;
  }

  /**
   * A step that threw: the automation is left alone for a while that doubles with each failure in a
   * row, in memory AND in the wake index (its `wake_at` moved past the hold-back) — a record that
   * stayed due would be handed to every look first and, `scheduler.batchSize` of them, starve the rest.
   */
  private async holdBack(automationId: string, err: unknown): Promise<void> {
    const failures = (this.failures.get(automationId) ?? 0) + 1;
    this.failures.set(automationId, failures);
    const delayMs = Math.min(MAX_HOLD_BACK_MS, this.deps.settings.pollMs * 2 ** Math.min(failures - 1, 20));
    this.quarantine.set(automationId, performance.now() + delayMs);
    this.deps.logger.warn('automation step failed; it is looked at again later', { automation_id: automationId, error: (err as Error)?.message ?? String(err), retry_in_ms: delayMs });
    const until = new Date(this.deps.clock.nowMs() + delayMs).toISOString();
    try {
      await this.deps.store.update(automationId, (stored) => (typeof stored.wake_at === 'string' && stored.wake_at < until ? { ...stored, wake_at: until } : undefined));
    } catch (moveErr) {
      // Held back in memory still; logged once with the step's failure.
      this.deps.logger.warn('the wake time of an automation whose step failed could not be moved', { automation_id: automationId, error: (moveErr as Error)?.message ?? String(moveErr) });
    }
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
  private async step(automationId: string, options: { atStart?: boolean } = {}): Promise<void> {
    const clock = this.transitionClock();
    const effects: StepEffects = { launch: null, cancel: null };
    const record = await this.deps.store.update(automationId, (stored) => {
      const next = structuredClone(stored);
      effects.launch = null;
      effects.cancel = null;
      this.planner.plan(next, clock, effects, options);
      if (engineState(next) !== engineState(stored)) next.updated_at = clock.nowIso;
      return next;
    });
    if (!record) return;
    if (effects.cancel) await this.cancelRun(record, effects.cancel);
    if (record.current?.status === 'running' || effects.launch) this.running.add(automationId);
    // The launch runs behind this step in the automation's own queue (still one at a time per
    // automation, awaited by stop()): a pass then waits for one synced commit per fire, not the
    // launch's and its mark-running commit too, which made the lateness tail (bench/automations).
    const launch = effects.launch;
    if (launch) void this.guarded(automationId, () => this.launch(record, launch));
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
          // A growing automation replays its session through its own window (reference §3.9).
          ...(definition.context.mode === 'growing' && definition.context.growing?.max_tokens ? { historyMaxTokens: definition.context.growing.max_tokens } : {}),
        });
      } catch (err) {
        // A refusal's sentence is for the owner; any other fault may name server paths (the data folder): it goes to the log.
        if (isHttpError(err) && err.status < 500) failure = err.message || 'The run could not start.';
        else {
          failure = 'The run could not start because of a fault in the server; an admin finds it in the server log.';
          this.deps.logger.warn('an occurrence could not start', { automation_id: record.automation_id, run_id: current.run_id, error: (err as Error)?.message ?? String(err) });
        }
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
      // The runner waits for this before it moves past the command: one page's updates go at once (their commits batch).
      const updates: Promise<void>[] = [];
      for (const record of page.items) {
        const binding = record.definition.trigger;
        const source = sources.get(binding.source_id, binding.source_version);
        if (source?.record.capabilities.kind !== 'event' || !source.matches?.(binding.config, event)) continue;
        const envelope = source.envelope?.(event) ?? { name: event.name, payload: event.payload };
        const clock = this.transitionClock();
        updates.push(this.guarded(record.automation_id, async () => {
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
        }));
      }
      await Promise.all(updates);
      cursor = page.next_cursor;
    } while (cursor);
    this.nudge();
  }
}

/** What the engine changes that counts as an update of the automation (not its next wake time). */
function engineState(record: AutomationRecord): string {
  return JSON.stringify([record.status, record.current, record.pending.length, record.trigger_state, record.occurrence_count, record.attention_seq, record.archive_pending]);
}

/** A definition's concrete target as the launcher takes it (`bundle_ref` = `id@version`). */
export function launchTargetOf(target: AutomationRecord['definition']['target']): LaunchTarget {
  const at = target.bundle_ref.lastIndexOf('@');
  const launch: LaunchTarget = at > 0 ? { bundle_id: target.bundle_ref.slice(0, at), bundle_version: target.bundle_ref.slice(at + 1), flow_id: target.flow_id } : { bundle_id: target.bundle_ref, flow_id: target.flow_id };
  if (target.registry_scope === 'tenant_catalog') launch.registry_scope = 'tenant_catalog';
  return launch;
}
