/**
 * How a run's state changes outside its steps: it waits (a pause), is resumed (an answer, an
 * event, a child's result, a due wait_until), is cancelled, and ends (completed, failed or
 * cancelled) with its last records, the ledger's terminal mark and its state in one commit.
 */
import { nodeTracesFromLedger } from './node-traces.js';
import { LedgerLimitError, TERMINAL_STATUS_KEY, type LedgerStore, type LiveBus, type StepRecord } from '@keel/plugin-ledger';
import type { Logger } from '@keel/plugin-sdk';
import { temp, type RunVars } from '../flow/node-io.js';
import type { ResumeOutcome, RunLock, RunPersistence, RunResumer, RunScheduler } from './collaborators.js';
import { abandonedCompaction } from './memory-compaction.js';
import { stepRecord } from './records.js';
import type { RunFlows } from './run-flows.js';
import { storableCopy, unexpectedReason } from './run-outcomes.js';
import { isTerminal, type RunState, type RunStatus } from './run-state.js';
import type { RunSignals } from './run-signals.js';
import type { RunStates } from './run-states.js';
import type { RunStore } from './run-store.js';

export interface RunLifecycleDeps {
  lock: RunLock;
  states: RunPersistence & Pick<RunStates, 'forget' | 'takeStaged' | 'restage' | 'stagedOf'>;
  signals: Pick<RunSignals, 'abort' | 'reasonOf' | 'forget'>;
  /** Written in the ledger's end commit. */
  runs: Pick<RunStore, 'writeInTransaction'>;
  ledger: LedgerStore;
  hub: LiveBus;
  /** The compiled flow kept for a live run, dropped at its end. */
  flows: Pick<RunFlows, 'forget'>;
  scheduler: RunScheduler;
  log: Logger;
  /** Told after a root run's end is durable (`runs.hooks` onRunEnded); must not throw or wait. */
  rootEnded?: (run: RunState) => void;
}

export class RunLifecycle implements RunResumer {
  constructor(private readonly deps: RunLifecycleDeps) {}

  /** Ticks a running run, or arms a waiting run's wait_until (a resume after a pause, a restart). */
  wake(runId: string): void {
    const run = this.deps.states.load(runId);
    if (run?.status === 'running') return this.deps.scheduler.schedule(runId);
    const wait = run?.waiting;
    if (wait?.reason === 'until' && wait.until) this.deps.scheduler.schedule(runId, Date.parse(wait.until));
  }

  /** A wait_until's timer fired: the run resumes if its time has come (else the timer is set again). */
  async fireWait(runId: string): Promise<void> {
    await this.deps.lock.run(runId, async () => {
      const run = this.deps.states.load(runId);
      if (!run || run.status !== 'waiting' || run.waiting?.reason !== 'until') return;
      if (Date.parse(run.waiting.until ?? '') > Date.now()) return this.deps.scheduler.schedule(runId, Date.parse(run.waiting.until!));
      await this.resumeWith(run, { until: run.waiting.until, waited: true });
    });
  }

  /** The state a paused running run waits in (reference §3.4). */
  async toPauseWait(run: RunState): Promise<void> {
    run.status = 'waiting';
    run.waiting = { reason: 'user', wait_key: `pause:${run.run_id}`, until: null, resume_to_node: run.current_node, result_key: null, prompt: 'Paused', choices: null, allow_free_text: false, details: { kind: 'pause' } };
    await this.deps.states.save(run);
  }

  /** Resumes a waiting run with a payload (ask_user answer, event, child result); `recorded` adds fields to the resume record's result. */
  async resumeWith(run: RunState, payload: unknown, waitKey?: string, recorded: Record<string, unknown> = {}): Promise<ResumeOutcome> {
    if (run.status !== 'waiting' || !run.waiting) return 'not_waiting';
    if (run.paused) return 'paused';
    if (waitKey && run.waiting.wait_key !== waitKey) return 'wait_key_mismatch';
    const wait = run.waiting;
    const record = stepRecord(run, wait.resume_to_node ?? run.current_node ?? '', 'completed', {
      effect: { type: 'resume', payload: { wait_reason: wait.reason, wait_key: wait.wait_key, resume_to_node: wait.resume_to_node, result_key: wait.result_key, payload: payload as Record<string, unknown> }, result_key: null },
      result: { resumed: true, ...recorded },
    });
    if (wait.resume_to_node && wait.details?.kind !== 'pause') temp(run.vars as RunVars).effects[wait.resume_to_node] = payload;
    run.status = 'running';
    run.waiting = null;
    run.current_node = wait.resume_to_node ?? run.current_node;
    try {
      // One commit: a crash cannot leave the resume recorded and the run still waiting (a repeat would record it twice).
      await this.deps.states.saveWith(run, [record]);
    } catch (err) {
      if (!(err instanceof LedgerLimitError)) throw err;
      await this.fail(run, err.message);
      return 'resumed';
    }
    this.deps.scheduler.schedule(run.run_id);
    return 'resumed';
  }

  /**
   * Fails a run whose step threw an error nothing expected (a record the ledger could not write, a
   * contributed node's bug): left running, it would fail the same way at every tick and restart.
   * The reason names the node and the error's first line, without a stack or absolute paths.
   */
  async failUnexpected(runId: string, err: unknown): Promise<void> {
    await this.deps.lock.run(runId, async () => {
      const run = this.deps.states.load(runId);
      if (!run || isTerminal(run.status)) return;
      const at = run.current_node ? ` at node '${run.current_node}'` : '';
      const reason = `The run stopped on an unexpected error${at}: ${unexpectedReason(err)}`;
      try {
        await this.fail(run, reason);
      } catch (again) {
        if (isTerminal(run.status)) throw again;
        // The run's own variables hold what storage refuses (a value a node made): it ends with what can be stored of them.
        this.deps.log.warn('failed run saved without its unstorable variables', { run_id: runId, error: (again as Error).message });
        run.vars = storableCopy(run.vars);
        await this.fail(run, reason);
      }
    });
  }

  /** Ends a run as cancelled (a command), its in-flight work aborted first. */
  async cancel(run: RunState, reason: string | null): Promise<boolean> {
    if (isTerminal(run.status)) return false;
    this.deps.signals.abort(run.run_id, reason);
    await this.finish(run, 'cancelled', null, reason ?? 'Cancelled');
    return true;
  }

  /** Ends a run whose effect stopped because the run was cancelled; always false (the run stops). */
  async endCancelled(run: RunState): Promise<boolean> {
    await this.finish(run, 'cancelled', null, this.deps.signals.reasonOf(run.run_id) ?? 'Cancelled');
    return false;
  }

  /** Ends a run as completed; always false (the run stops). */
  async complete(run: RunState, output: Record<string, unknown>): Promise<boolean> {
    // The agent loop hands its node traces (from its ledger) to the agent node's scratchpad (reference runtime-nodes §3.9).
    if (run.builtin === 'react_agent') output = { ...output, node_traces: nodeTracesFromLedger(this.recordsOf(run.run_id)) };
    await this.finish(run, 'completed', output, null, stepRecord(run, run.current_node ?? 'end', 'completed', { result: { completed: true, output } }));
    return false;
  }

  /** Every record of the run, in ledger order (the staged ones last). */
  private recordsOf(runId: string): StepRecord[] {
    const records: StepRecord[] = [];
    for (let after = 0; ; ) {
      const page = this.deps.ledger.page(runId, after, 1000);
      if (!page.items.length) return [...records, ...this.deps.states.stagedOf(runId)];
      records.push(...page.items);
      after = page.next_after;
    }
  }

  /**
   * Ends a run as failed with why; always false (the run stops). The failed record names `at.node`
   * when given (the node that failed, e.g. an unsupported one), else the current node; a step that
   * threw into an effect node passes the origin's `system:tick_exception:<run_id>` key (RN §2 rule 5).
   */
  async fail(run: RunState, error: string, at: { node?: string; idempotencyKey?: string } = {}): Promise<boolean> {
    const record = stepRecord(run, at.node ?? run.current_node ?? '', 'failed', { error, ...(at.idempotencyKey ? { idempotency_key: at.idempotencyKey } : {}) });
    await this.finish(run, 'failed', null, error, record);
    return false;
  }

  /**
   * Terminal: the last records (the `abstract.status` among them), the ledger's terminal mark and
   * the run state in one commit, so a crash leaves all of them or none; the ledger refuses to end
   * a run twice, so a replay of a run whose end was committed appends nothing. Then synthetic ends
   * of open calls, and the parent is scheduled.
   */
  private async finish(run: RunState, status: 'completed' | 'failed' | 'cancelled', output: Record<string, unknown> | null, error: string | null, last?: StepRecord): Promise<void> {
    for (const call of this.deps.hub.openCallsOf(run.run_id)) {
      this.deps.hub.publishEnd({ kind: 'llm.delta_end', ...call.base, seq: call.seq + 1, reason: status === 'failed' ? 'failed' : 'cancelled', snapshot: false, synthetic: true });
    }
    const statusRecord = stepRecord(run, run.current_node ?? '', 'completed', {
      effect: { type: 'emit_event', payload: { name: 'abstract.status', scope: 'session', payload: { text: status } }, result_key: null },
      result: { emitted: true, name: 'abstract.status', payload: { text: status } },
      idempotency_key: `${TERMINAL_STATUS_KEY}${status}`,
    });
    const abandoned = abandonedCompaction(run);
    // The state as it ends; `run` itself flips only once the commit is durable, so a reader never sees an end the ledger lacks.
    const ended: RunState = { ...run, status, output, error, waiting: null, updated_at: new Date().toISOString() };
    // What the run's last steps staged goes first, in the same commit.
    const staged = this.deps.states.takeStaged(run.run_id);
    try {
      await this.deps.ledger.endRun(run.run_id, [...staged, ...(abandoned ? [abandoned] : []), ...(last ? [last] : []), statusRecord], status, (end) => {
        if (end.status !== status) this.deps.log.warn('run replayed to another end than its ledger records; the ledger wins', { run_id: run.run_id, recorded: end.status, replayed: status });
        ended.status = end.status as RunStatus;
        this.deps.runs.writeInTransaction(ended);
      });
    } catch (err) {
      this.deps.states.restage(run.run_id, staged);
      // An output too large for a record: the run fails with the ledger's reason instead (a short record).
      if (err instanceof LedgerLimitError && error !== err.message) return this.finish(run, 'failed', null, err.message, stepRecord(run, run.current_node ?? '', 'failed', { error: err.message }));
      throw err;
    }
    Object.assign(run, { status: ended.status, output, error, waiting: null, updated_at: ended.updated_at });
    this.deps.flows.forget(run.run_id);
    this.deps.signals.forget(run.run_id);
    this.deps.states.forget(run.run_id);
    if (run.parent_run_id) this.deps.scheduler.schedule(run.parent_run_id);
    else this.tellRootEnded(run);
  }

  /** A listener's trouble is logged, never the run's: its end is already committed. */
  private tellRootEnded(run: RunState): void {
    try {
      this.deps.rootEnded?.(run);
    } catch (err) {
      this.deps.log.warn('telling that a root run ended failed', { run_id: run.run_id, error: (err as Error).message ?? String(err) });
    }
  }
}
