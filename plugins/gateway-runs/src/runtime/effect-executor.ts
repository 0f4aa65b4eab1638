/**
 * Performs one effect durably, committing as often as its durability class needs
 * (effect-durability.ts): an `announced` effect's `started` record is committed before the work; a
 * completed or waiting effect's records come back in `records`, for the stepper to commit with the
 * run's new state (or to stage, for a `buffered` one); a failed attempt's records are committed
 * here. A failed attempt the retry policy allows to repeat is followed, after its backoff, by a new
 * attempt with its own step id and the same idempotency key. An effect whose completed record
 * already exists (a replay after a crash) is not run again: its recorded result is reused, and one
 * whose `waiting` record exists waits again without a new attempt. A tool_calls step that started
 * and never finished before a crash is not entered again either: it is recorded as failed. LLM
 * calls (llm-call-effect.ts) stream their tokens to the live bus and end with `llm.delta_end`
 * after the durable record (`afterCommit`).
 */
import type { InferenceService } from '@keel/plugin-inference';
import { ToolRefusal } from '@keel/plugin-workspaces';
import type { LedgerStore, LiveBus, StepRecord } from '@keel/plugin-ledger';
import { isContributed, type ContributedEffect, type EffectRequest, type EmitEventPayload } from '../flow/effect-requests.js';
import { eventScope, eventScopeId, eventWaitKey } from '../flow/event-keys.js';
import { NodeFailure, type EffectContext, type EffectNodeType, type NodeTypes } from '../flow/node-types.js';
import { LlmCallEffect, type StreamingSwitch } from './llm-call-effect.js';
import type { LlmOutputSettings } from './llm-output.js';
import { finishRecord, idempotencyKey, stepRecord } from './records.js';
import { backoff, isRetryable, RetryPolicy } from './retry-policy.js';
import type { ChildRunStarter, RunSignalSource } from './collaborators.js';
import { durabilityOf, type EffectDurability } from './effect-durability.js';
import type { EventDeliverer } from './event-delivery.js';
import type { RunState, WaitState } from './run-state.js';
import type { ToolRunner, WrittenFile } from './run-tools.js';

export type { StreamingSwitch } from './llm-call-effect.js';

export type EffectOutcome =
  | { status: 'completed'; result: Record<string, unknown> }
  | { status: 'waiting'; wait: WaitState; result?: Record<string, unknown> }
  | { status: 'failed'; error: string; cancelled: boolean; stoppedInFlight?: boolean; partial?: string };

/** An effect performed: how it ended, and what its caller must commit. */
export interface PerformedEffect {
  outcome: EffectOutcome;
  durability: EffectDurability;
  /**
   * Records of a completed or waiting effect not committed yet: the caller commits them with the
   * run's new state (or stages them, for a `buffered` effect). Empty for a failed one (committed here).
   */
  records: StepRecord[];
  /** Owed once `records` are durable, with the cursor of the last one (an LLM call's `llm.delta_end`). */
  afterCommit: ((cursor: number) => void) | null;
}

/** Where an effect's records are committed: behind the run's staged records (run-states.ts). */
export interface EffectRecords {
  commitRecords(run: RunState, records: StepRecord[]): Promise<number[]>;
  /** Throws `LedgerLimitError` when `records` would not fit the run's ledger (behind what is staged). */
  check(run: RunState, records: StepRecord[]): void;
}

/** How an unrecorded node's work ended: its result, the failure record it ends the run with, or a cancel. */
export type UnrecordedOutcome =
  | { status: 'completed'; result: Record<string, unknown> }
  | { status: 'failed'; record: Record<string, unknown> }
  | { status: 'cancelled' };

export interface EffectExecutorDeps {
  ledger: LedgerStore;
  /** Commits the records this class writes itself (started, failed attempts). */
  records: EffectRecords;
  hub: LiveBus;
  inference: InferenceService;
  /** start_subworkflow: the child run. */
  children: ChildRunStarter;
  /** emit_event: the runs waiting on it. */
  events: EventDeliverer;
  /** tool_calls: the run's workspace tools. */
  tools: ToolRunner;
  /** Aborted when the run is cancelled. */
  signals: RunSignalSource;
  streaming: StreamingSwitch;
  /** How many attempts each effect type gets, and the backoff between them. */
  retry?: RetryPolicy;
  /** Effect node types other plugins registered: performed here like the built-in effects. */
  nodeTypes?: NodeTypes;
  /** The output-token bounds of LLM calls (`llm.*`). */
  llmOutput?: LlmOutputSettings;
}

export class EffectExecutor {
  private readonly ledger: LedgerStore;
  private readonly policy: RetryPolicy;

  private readonly llm: LlmCallEffect;

  constructor(private readonly deps: EffectExecutorDeps) {
    this.ledger = deps.ledger;
    this.policy = deps.retry ?? new RetryPolicy();
    this.llm = new LlmCallEffect(deps, this.pendingEnds);
  }

  async perform(run: RunState, nodeId: string, effect: EffectRequest): Promise<PerformedEffect> {
    const durability = durabilityOf(effect, this.deps.nodeTypes);
    const done = (outcome: EffectOutcome, records: StepRecord[] = [], afterCommit: PerformedEffect['afterCommit'] = null): PerformedEffect => ({ outcome, durability, records, afterCommit });
    const key = idempotencyKey(run, nodeId, effect);
    const prior = this.ledger.completedByKey(run.run_id, key);
    if (prior) return done({ status: 'completed', result: prior.result ?? {} });

    const max = this.policy.maxAttempts(effect.type);
    const signal = this.deps.signals.signalOf(run.run_id);
    // A replay after a crash continues the effect's attempts: numbering, failures and any backoff left.
    const history = this.ledger.tailByKey(run.run_id, key);
    // The effect already reached its wait, but the run state saying so was not saved: wait again, record nothing new.
    const reached = history[history.length - 1];
    if (reached?.status === 'waiting' && reached.result?.wait) {
      const { wait: recordedWait, ...rest } = reached.result as { wait: WaitState } & Record<string, unknown>;
      return done({ status: 'waiting', wait: recordedWait, result: rest });
    }
    let attempt = history.reduce((n, r) => Math.max(n, r.attempt), 0);
    const failed = history.filter((r) => r.status === 'failed');
    let failures = failed.length;
    const interrupted = effect.type === 'tool_calls' ? unfinishedAttempt(history) : null;
    if (interrupted) {
      // A tool step that started and never finished (the process died in it) is not entered again: it may be what killed or hung the process.
      const error = `Interrupted by a restart: the tool calls of attempt ${interrupted.attempt} started at ${interrupted.started_at} and never finished; they are not run again.`;
      await this.deps.records.commitRecords(run, [finishRecord(interrupted, 'failed', { error, result: { interrupted: true, retryable: false, will_retry: false, max_attempts: max, backoff_ms: null } })]);
      return done({ status: 'failed', error, cancelled: false });
    }
    const lastFailed = failed[failed.length - 1];
    if (lastFailed) {
      const retry = (lastFailed.result ?? {}) as { will_retry?: boolean; backoff_ms?: number; cancelled?: boolean };
      if (retry.cancelled) return done({ status: 'failed', error: lastFailed.error ?? 'Cancelled', cancelled: true });
      if (!retry.will_retry || failures >= max) return done({ status: 'failed', error: gaveUp(lastFailed.error ?? 'failed', attempt), cancelled: false });
      const wait = Date.parse(lastFailed.ended_at ?? '') + Number(retry.backoff_ms ?? 0) - Date.now();
      if (!(await backoff(wait, signal))) return done(cancelledInBackoff());
    }

    for (;;) {
      attempt++;
      const started = this.startedRecord(run, nodeId, effect, key, attempt);
      // Only an external side effect needs its start durable before the work (a retry must know it began).
      if (durability === 'announced') await this.deps.records.commitRecords(run, [started]);
      // Committed after the work: a record the ledger would refuse then is refused now, before a child run or an event exists for a step that cannot be recorded.
      else if (durability === 'committed') this.deps.records.check(run, [started]);
      const unannounced = durability === 'announced' ? [] : [started];

      let outcome: EffectOutcome;
      let retryable = false;
      try {
        outcome = await this.run(run, nodeId, effect, key, started.step_id);
      } catch (err) {
        const cancelled = signal.aborted;
        outcome = { status: 'failed', error: (err as Error).message ?? String(err), cancelled };
        retryable = !cancelled && isRetryable(err);
      }
      const end = this.takeEnd(started.step_id);
      if (outcome.status === 'completed') return done(outcome, [...unannounced, finishRecord(started, 'completed', { result: outcome.result })], end);
      if (outcome.status === 'waiting') return done(outcome, [...unannounced, finishRecord(started, 'waiting', { result: { ...(outcome.result ?? {}), wait: outcome.wait } })], end);

      failures++;
      const willRetry = retryable && failures < max;
      const wait = willRetry ? this.policy.backoffMs(failures) : null;
      const final = finishRecord(started, 'failed', {
        error: outcome.error,
        result: outcome.cancelled
          ? { cancelled: true, stopped_in_flight: outcome.stoppedInFlight ?? false, partial_content: outcome.partial ?? null }
          : { retryable, will_retry: willRetry, max_attempts: max, backoff_ms: wait },
      });
      // A failed attempt is committed here, before any backoff: the run's state does not change with it.
      const cursors = await this.deps.records.commitRecords(run, [...unannounced, final]);
      end?.(cursors[cursors.length - 1]!);
      if (!willRetry) return done(!outcome.cancelled && attempt > 1 ? { ...outcome, error: gaveUp(outcome.error, attempt) } : outcome);
      // A cancel during the backoff stops here: no further attempt.
      if (!(await backoff(wait!, signal))) return done(cancelledInBackoff());
    }
  }

  /** The frame owed once the step's final record is durable, if its work left one. */
  private takeEnd(stepId: string): ((cursor: number) => void) | null {
    const end = this.pendingEnds.get(stepId) ?? null;
    this.pendingEnds.delete(stepId);
    return end;
  }

  /**
   * A contributed node that writes no ledger records (`recorded: false`): performed on every visit,
   * its result only on the pins; what it throws (a `NodeFailure` included) reaches the stepper. Files
   * it announces are told to the `runs.hooks` listeners without a ledger cursor (there is no record).
   */
  async performUnrecorded(run: RunState, nodeId: string, effect: ContributedEffect, type: EffectNodeType): Promise<UnrecordedOutcome> {
    const signal = this.deps.signals.signalOf(run.run_id);
    const written: WrittenFile[] = [];
    try {
      return { status: 'completed', result: (await type.perform(effect.payload, this.contributedContext(run, nodeId, effect.type, written))) ?? {} };
    } catch (err) {
      if (signal.aborted) return { status: 'cancelled' };
      return { status: 'failed', record: err instanceof NodeFailure ? err.record : { success: false, error: (err as Error).message ?? String(err) } };
    } finally {
      if (written.length) await this.deps.tools.announceWritten(run, nodeId, null, written).catch(() => undefined);
    }
  }

  /** What a contributed effect node's `perform` gets besides its payload. */
  private contributedContext(run: RunState, nodeId: string, type: string, written: WrittenFile[]): EffectContext {
    let vars: Readonly<Record<string, unknown>> | undefined;
    return {
      account: run.account,
      runId: run.run_id,
      rootRunId: run.root_run_id,
      parentRunId: run.parent_run_id,
      workflowId: run.workflow_id,
      sessionId: run.session_id,
      actorId: run.actor_id,
      nodeId,
      get vars() {
        return (vars ??= structuredClone(run.vars));
      },
      signal: this.deps.signals.signalOf(run.run_id),
      workspaceRoot: () => this.deps.tools.workspaceRoot(run),
      fileProduced: (realPath, contentType) => void written.push({ realPath, contentType, insideOnly: true }),
      writeOutput: async (relPath, bytes, contentType) => {
        try {
          return await this.deps.tools.writeOutput(run, nodeId, type, relPath, bytes, contentType);
        } catch (err) {
          if (err instanceof ToolRefusal) throw new Error(`${type} could not write ${relPath}: ${err.message}`, { cause: err });
          throw err;
        }
      },
    };
  }

  /** The `started` record of one attempt: a fresh step id, the attempt number, the effect's key. */
  private startedRecord(run: RunState, nodeId: string, effect: EffectRequest, key: string, attempt: number) {
    const started = stepRecord(run, nodeId, 'started', {
      effect: { type: effect.type, payload: { ...effect.payload }, result_key: `_temp.effects.${nodeId}` },
      idempotency_key: key,
      attempt,
    });
    if (!isContributed(effect) && effect.type === 'llm_call') {
      const params = { ...effect.payload.params, trace_metadata: { step_id: started.step_id, effect_idempotency_key: key, attempt } };
      started.effect = { ...started.effect!, payload: { ...effect.payload, params } };
    }
    return started;
  }

  private async run(run: RunState, nodeId: string, effect: EffectRequest, key: string, stepId: string): Promise<EffectOutcome> {
    if (isContributed(effect)) {
      const contributed = this.deps.nodeTypes?.effect(effect.type);
      if (!contributed) return { status: 'failed', error: `effect type '${effect.type}' is not supported by Keel`, cancelled: false };
      const written: WrittenFile[] = [];
      try {
        const result = await contributed.perform(effect.payload, this.contributedContext(run, nodeId, effect.type, written));
        return { status: 'completed', result: result ?? {} };
      } finally {
        this.announceAfterRecord(run, nodeId, stepId, written);
      }
    }
    switch (effect.type) {
      case 'llm_call':
        return this.llm.perform(run, nodeId, effect.payload, stepId);
      case 'ask_user': {
        const p = effect.payload;
        return { status: 'waiting', wait: wait('user', p.wait_key, nodeId, { prompt: p.prompt, choices: p.choices, allow_free_text: p.allow_free_text }) };
      }
      case 'wait_event': {
        const p = effect.payload;
        // An `on_event` listener names its scope and event; the key is built from its own run (RN §7.2).
        const waitKey = p.wait_key ?? eventWaitKey(run, eventScope(p.scope), p.name || '*');
        return { status: 'waiting', wait: wait('event', waitKey, nodeId, { prompt: p.prompt, choices: p.choices, allow_free_text: p.allow_free_text }) };
      }
      case 'wait_until': {
        const until = effect.payload.until;
        if (Date.parse(until) <= Date.now()) return { status: 'completed', result: { until, ready: true } };
        return { status: 'waiting', wait: { ...wait('until', null, nodeId, {}), until } };
      }
      case 'answer_user':
        return { status: 'completed', result: { message: effect.payload.message, level: effect.payload.level } };
      case 'emit_event':
        return this.emitEvent(run, effect.payload, nodeId);
      case 'tool_calls': {
        // Files the calls wrote are announced once the step's record is stored (with its cursor), also when the step failed.
        const written: WrittenFile[] = [];
        try {
          return { status: 'completed', result: await this.deps.tools.runTools(run, effect.payload, (realPath) => written.push({ realPath })) };
        } finally {
          this.announceAfterRecord(run, nodeId, stepId, written);
        }
      }
      case 'start_subworkflow': {
        const p = effect.payload;
        const child = await this.deps.children.startChild(run, key, p);
        return {
          status: 'waiting',
          result: { sub_run_id: child },
          wait: wait('subworkflow', `subworkflow:${child}`, nodeId, { details: { sub_run_id: child, sub_workflow_id: p.workflow_id, async: true, include_traces: Boolean(p.include_traces) } }),
        };
      }
    }
  }

  /** `llm.delta_end` frames owed once their call's durable record is written. */
  readonly pendingEnds = new Map<string, (cursor: number) => void>();

  /** Files an effect wrote are announced (`runs.hooks`) once its final record is stored, with that record's cursor. */
  private announceAfterRecord(run: RunState, nodeId: string, stepId: string, written: WrittenFile[]): void {
    if (written.length) this.pendingEnds.set(stepId, (cursor: number) => void this.deps.tools.announceWritten(run, nodeId, cursor, written).catch(() => undefined));
  }

  /**
   * RN §7.1: resumes the runs of the run's account waiting on the event's key or on its scope's
   * wildcard (`evt:<scope>:<id>:*`); when none was, the result lists the events the session's
   * runs do wait for.
   */
  private async emitEvent(run: RunState, p: EmitEventPayload, nodeId: string): Promise<EffectOutcome> {
    const scope = eventScope(p.scope);
    const name = p.name;
    const scopeId = eventScopeId(run, scope, p.session_id);
    const waitKey = `evt:${scope}:${scopeId}:${name}`;
    const envelope = {
      event_id: p.event_id ?? `${run.run_id}:${nodeId}:${run.effect_index}`,
      name,
      scope,
      session_id: scope === 'session' ? scopeId : run.session_id,
      payload: p.payload,
      emitted_at: new Date().toISOString(),
      emitter: { run_id: run.run_id, workflow_id: run.workflow_id, node_id: nodeId },
    };
    const delivery = await this.deps.events.deliver(run.account, waitKey, envelope, { wildcardKey: `evt:${scope}:${scopeId}:*` });
    const result: Record<string, unknown> = { wait_key: waitKey, name, scope, delivered: delivery.delivered_to.length, delivered_to: delivery.delivered_to, resumed: delivery.resumed };
    if (delivery.delivered_to.length === 0) result.available_listeners_in_session = this.deps.events.listenersInSession(run.account, scope === 'session' ? scopeId : (run.session_id ?? run.run_id));
    return { status: 'completed', result };
  }
}

/** The `started` record of the effect's last attempt when no final record of that attempt followed it. */
function unfinishedAttempt(history: StepRecord[]): StepRecord | null {
  const last = history[history.length - 1];
  if (!last || last.status !== 'started') return null;
  return history.some((r) => r !== last && r.step_id === last.step_id) ? null : last;
}

function gaveUp(error: string, attempts: number): string {
  return attempts > 1 ? `${error} (gave up after ${attempts} attempts)` : error;
}

function cancelledInBackoff(): EffectOutcome {
  return { status: 'failed', error: 'Cancelled while waiting to retry', cancelled: true };
}

function wait(reason: WaitState['reason'], waitKey: string | null, nodeId: string, extra: Partial<WaitState>): WaitState {
  return { reason, wait_key: waitKey, until: null, resume_to_node: nodeId, result_key: `_temp.effects.${nodeId}`, prompt: null, choices: null, allow_free_text: true, details: null, ...extra };
}
