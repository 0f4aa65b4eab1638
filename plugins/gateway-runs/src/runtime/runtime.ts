/**
 * Runs VisualFlow graphs durably. A tick takes a run step by step under its lock: pure steps
 * in memory, effects through the EffectExecutor (ledger first), the state saved to LMDB after
 * every effect and at every wait or end. After a crash a run continues from its last saved state;
 * replayed effects find their completed records and are not run twice.
 */
import type { InferenceService } from '@keel/plugin-inference';
import { LedgerLimitError, TERMINAL_STATUS_KEY, type LedgerStore, type LiveBus } from '@keel/plugin-ledger';
import type { Logger } from '@keel/plugin-sdk';
import type { BundleRegistry } from '../bundles/bundle-registry.js';
import type { CatalogStore } from '../catalog/catalog-store.js';
import { step, type EffectRequest, type StepOutcome } from '../flow/interpreter.js';
import { temp, type RunVars } from '../flow/node-io.js';
import { UnsupportedNodeError, type NodeTypes } from '../flow/node-types.js';
import { childRunState } from './child-run.js';
import { appendLlmTurn } from './conversation-memory.js';
import { EffectExecutor, type EffectOutcome } from './effect-executor.js';
import { KeyedLock } from './keyed-lock.js';
import { MemoryCompaction } from './memory-compaction.js';
import { compactionStep, MEMORY_COMPACTOR } from './memory-summary.js';
import { agentStep } from './react-agent.js';
import type { RetryPolicy } from './retry-policy.js';
import { FlowMissingError, RunFlows } from './run-flows.js';
import { RunLimits, UNKNOWN_ADDITIONS } from './run-limits.js';
import { storableCopy, terminalOutput, unexpectedReason } from './run-outcomes.js';
import { scheduleStep } from './schedule.js';
import { childRunId, stepRecord } from './records.js';
import type { StepRecord } from '@keel/plugin-ledger';
import { isTerminal, type RunState, type RunStatus, type WaitState } from './run-state.js';
import type { RunStore } from './run-store.js';
import type { ToolLimits } from '../workspace/tool-limits.js';
import { runToolStep, toolCallsOf } from '../workspace/tool-step.js';
import { reachOf, type NonAdminReach, type RunReach, type WorkspacePolicy } from '../workspace/workspace-policy.js';

export interface RuntimeDeps {
  /** Keep runs this process works on in memory (only where the runner runs; elsewhere LMDB is the truth). */
  cacheLive: boolean;
  runs: RunStore;
  ledger: LedgerStore;
  hub: LiveBus;
  bundles: BundleRegistry;
  /** Catalog runs read their version's immutable bytes (by the digest recorded at start). */
  catalog: CatalogStore;
  inference: InferenceService;
  log: Logger;
  /** How many attempts each effect type gets, and the backoff between them. */
  retry: RetryPolicy;
  /** Where runs' file tools may read and write; makes each root run's folder. */
  workspaces: WorkspacePolicy;
  /** What runs of non-admin accounts reach: only their own folder, or the gateway policy (`workspace.nonAdmin`). */
  nonAdminWorkspace: NonAdminReach;
  /** The file tools' size and time budgets (`workspace.*`). */
  toolLimits: ToolLimits;
  /** Whether the agent loop's system prompt describes its file tools (`agentToolPrompt`). */
  agentToolPrompt?: boolean;
  /** Steps and variable size per run (`limits.*`). */
  limits?: RunLimits;
  /** Called when a run needs ticking (the runner schedules it). */
  schedule(runId: string, atMs?: number): void;
  /** The node types flows may use: gateway-runs' own and those other plugins registered. */
  nodeTypes: NodeTypes;
}

const STEPS_PER_SLICE = 200;
/**
 * A slice also ends after this long: a step costs as much as its run's variables are big (saving
 * them), so 200 steps of a run holding megabytes held the event loop for seconds, every request
 * and every other run waiting.
 */
const SLICE_MS = 20;

export class Runtime {
  readonly lock = new KeyedLock();
  /** `compact_memory`: summary child runs and the memory rewrite. */
  readonly memory: MemoryCompaction;
  private readonly executor: EffectExecutor;
  private readonly cancels = new Map<string, AbortController>();
  /** Why a run was cancelled, kept until the tick that owns it notices the abort. */
  private readonly cancelReasons = new Map<string, string>();
  /** The live state of runs this process works on: steps mutate it, `save` makes it durable. */
  private readonly live = new Map<string, RunState>();
  /** The compiled flow of each live run. */
  private readonly runFlows: RunFlows;
  private readonly limits: RunLimits;

  constructor(private readonly deps: RuntimeDeps) {
    this.limits = deps.limits ?? new RunLimits();
    this.runFlows = new RunFlows(deps.bundles, deps.catalog, deps.nodeTypes, deps.log);
    this.executor = new EffectExecutor(deps.ledger, deps.hub, deps.inference, {
      startChild: (parent, key, payload) => this.startChild(parent, key, payload),
      deliverEvent: (waitKey, envelope) => this.deliverEvent(waitKey, envelope),
      streams: (run) => this.streams(run),
      signalOf: (run) => this.controller(run.run_id).signal,
      runTools: (run, payload) => this.runTools(run, payload),
    }, deps.retry, deps.nodeTypes);
    this.memory = new MemoryCompaction({
      lock: this.lock,
      ledger: deps.ledger,
      log: deps.log,
      load: (id) => this.load(id),
      save: (run) => this.save(run),
      saveWith: (run, records) => this.saveWith(run, records),
      startChild: (parent, key, payload) => this.startChild(parent, key, payload),
      schedule: (id) => deps.schedule(id),
    });
  }

  /** The run's current state (the in-memory one while this process works on it). */
  load(runId: string): RunState | undefined {
    const cached = this.live.get(runId);
    if (cached) return cached;
    const stored = this.deps.runs.get(runId);
    if (stored && this.deps.cacheLive && !isTerminal(stored.status)) this.live.set(runId, stored);
    return stored;
  }

  /** Aborts whatever the run is doing in flight (an LLM call stops at the next token). */
  abortInFlight(runId: string, reason?: string | null): void {
    if (reason) this.cancelReasons.set(runId, reason);
    this.cancels.get(runId)?.abort();
  }

  /** Ticks a run until it waits, ends or has taken a slice of steps or time (then it is rescheduled). */
  async tick(runId: string): Promise<void> {
    const endsAt = performance.now() + SLICE_MS;
    for (let steps = 0; steps < STEPS_PER_SLICE && (steps === 0 || performance.now() < endsAt); steps++) {
      const more = await this.lock.run(runId, () => this.stepOnce(runId));
      if (!more) return;
    }
    this.deps.schedule(runId);
  }

  /** One step; false when the run stopped being runnable. */
  private async stepOnce(runId: string): Promise<boolean> {
    const run = this.load(runId);
    if (!run || run.status !== 'running') return false;
    if (run.paused) {
      await this.toPauseWait(run);
      return false;
    }
    // Stepping is synchronous work on the event loop: its wall time is the processing time it costs (`limits.maxRunCpuMs`).
    const began = performance.now();
    let outcome: StepOutcome | ReturnType<typeof agentStep> | ReturnType<typeof scheduleStep> | ReturnType<typeof compactionStep>;
    const control = run.builtin === null ? temp(run.vars as RunVars).control : [];
    const frameBefore = control[control.length - 1];
    try {
      if (run.builtin === 'react_agent') {
        outcome = agentStep(run, { toolPrompt: this.deps.agentToolPrompt === true });
      } else if (run.builtin === 'scheduler') {
        outcome = scheduleStep(run);
      } else if (run.builtin === MEMORY_COMPACTOR) {
        outcome = compactionStep(run);
      } else {
        const flow = this.runFlows.of(run);
        if (run.current_node === null) run.current_node = flow.entry;
        if (run.effect_index === 0 && !temp(run.vars as RunVars).node_outputs[flow.entry]) this.runFlows.assertSupported(flow);
        outcome = step(flow, run.vars as RunVars, run.current_node, run.run_id, this.deps.nodeTypes);
      }
    } catch (err) {
      if (err instanceof UnsupportedNodeError || err instanceof FlowMissingError) return this.fail(run, err.message);
      // A failing non-effect node ends the run with success: false (reference §2.5 rule 11).
      return this.complete(run, { success: false, error: (err as Error).message, node: run.current_node });
    }

    // A runaway run (too many steps, variables grown too large) stops here, before it writes anything more.
    // What the step added to the variables: a flow step's output and a loop's new items; a built-in run's steps are measured whole.
    const frameAfter = control[control.length - 1];
    const added = run.builtin !== null ? UNKNOWN_ADDITIONS : [outcome.kind === 'goto' ? outcome.output : null, frameAfter !== frameBefore ? (frameAfter?.items ?? null) : null];
    const at = 'from' in outcome ? outcome.from : 'node' in outcome ? outcome.node : run.current_node;
    const over = this.limits.afterStep(run, at, added) ?? this.limits.afterCpu(run, at, performance.now() - began);
    if (over) return this.fail(run, over);

    if (outcome.kind === 'complete') return this.complete(run, outcome.output);
    if (outcome.kind === 'goto') {
      const next = outcome.node ?? this.controlReturn(run);
      if (next === null) return this.complete(run, terminalOutput(outcome.output));
      run.current_node = next;
      return true;
    }
    run.current_node = outcome.node;
    let result: EffectOutcome;
    try {
      result = await this.executor.perform(run, outcome.node, outcome.effect);
    } catch (err) {
      // The ledger refused the effect's record (too large, or the run's ledger is full): the run fails with why.
      if (err instanceof LedgerLimitError) return this.fail(run, err.message);
      throw err;
    }
    run.effect_index++;
    return this.afterEffect(run, outcome.node, outcome.effect, result);
  }

  private async afterEffect(run: RunState, nodeId: string, effect: EffectRequest, result: EffectOutcome): Promise<boolean> {
    const t = temp(run.vars as RunVars);
    if (result.status === 'completed') {
      t.effects[nodeId] = result.result;
      // A flow's llm_call with include_context adds its turn to the memory (the agent loop keeps its own).
      if (effect.type === 'llm_call' && effect.payload.include_context === true && run.builtin === null) {
        appendLlmTurn(run.vars, nodeId, effect.payload, String(result.result.content ?? ''));
      }
      await this.save(run);
      return true;
    }
    if (result.status === 'waiting') {
      run.status = 'waiting';
      run.waiting = result.wait;
      await this.save(run);
      if (result.wait.reason === 'until' && result.wait.until) this.deps.schedule(run.run_id, Date.parse(result.wait.until));
      if (result.wait.reason === 'subworkflow') this.deps.schedule(String(result.wait.details?.sub_run_id));
      return false;
    }
    if (result.cancelled) {
      await this.finish(run, 'cancelled', null, this.cancelReasons.get(run.run_id) ?? 'Cancelled');
      return false;
    }
    return this.fail(run, result.error);
  }

  /** The state a paused running run waits in (reference §3.4). */
  private async toPauseWait(run: RunState): Promise<void> {
    run.status = 'waiting';
    run.waiting = { reason: 'user', wait_key: `pause:${run.run_id}`, until: null, resume_to_node: run.current_node, result_key: null, prompt: 'Paused', choices: null, allow_free_text: false, details: { kind: 'pause' } };
    await this.save(run);
  }

  /** Resumes a waiting run with a payload (ask_user answer, event, child result). */
  async resumeWith(run: RunState, payload: unknown, waitKey?: string): Promise<'resumed' | 'not_waiting' | 'wait_key_mismatch' | 'paused'> {
    if (run.status !== 'waiting' || !run.waiting) return 'not_waiting';
    if (run.paused) return 'paused';
    if (waitKey && run.waiting.wait_key !== waitKey) return 'wait_key_mismatch';
    const wait = run.waiting;
    const record = stepRecord(run, wait.resume_to_node ?? run.current_node ?? '', 'completed', {
      effect: { type: 'resume', payload: { wait_reason: wait.reason, wait_key: wait.wait_key, resume_to_node: wait.resume_to_node, result_key: wait.result_key, payload: payload as Record<string, unknown> }, result_key: null },
      result: { resumed: true },
    });
    if (wait.resume_to_node && wait.details?.kind !== 'pause') temp(run.vars as RunVars).effects[wait.resume_to_node] = payload;
    run.status = 'running';
    run.waiting = null;
    run.current_node = wait.resume_to_node ?? run.current_node;
    try {
      // One commit: a crash cannot leave the resume recorded and the run still waiting (a repeat would record it twice).
      await this.saveWith(run, [record]);
    } catch (err) {
      if (!(err instanceof LedgerLimitError)) throw err;
      await this.fail(run, err.message);
      return 'resumed';
    }
    this.deps.schedule(run.run_id);
    return 'resumed';
  }

  /**
   * Fails a run whose step threw an error nothing expected (a record the ledger could not write, a
   * contributed node's bug): left running, it would fail the same way at every tick and restart.
   * The reason names the node and the error's first line, without a stack or absolute paths.
   */
  async failUnexpected(runId: string, err: unknown): Promise<void> {
    await this.lock.run(runId, async () => {
      const run = this.load(runId);
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

  /** Ends a run as cancelled (its in-flight work aborted first by the caller). */
  async cancel(run: RunState, reason: string | null): Promise<boolean> {
    if (isTerminal(run.status)) return false;
    this.abortInFlight(run.run_id, reason);
    await this.finish(run, 'cancelled', null, reason ?? 'Cancelled');
    return true;
  }

  async createRun(run: RunState): Promise<void> {
    // Every root run gets its own workspace folder (children share their root's); server-written, a client value is replaced.
    if (run.parent_run_id === null) {
      const workspace = await this.deps.workspaces.ensureRunFolder(run.run_id, run.account, this.reachOf(run));
      run.vars._gateway_workspace = workspace;
      run.input_data._gateway_workspace = workspace;
    }
    // One commit: a crash cannot leave a run the runner would execute without a ledger to write to, or the reverse.
    await this.deps.ledger.registerRun({ run_id: run.run_id, account: run.account, parent_run_id: run.parent_run_id, root_run_id: run.root_run_id, terminal: false, status: run.status }, () => this.deps.runs.createInTransaction(run));
    if (this.deps.cacheLive) this.live.set(run.run_id, run);
  }

  async save(run: RunState): Promise<void> {
    run.updated_at = new Date().toISOString();
    await this.deps.runs.save(run);
  }

  /** Appends the run's records and saves its state in one commit; resolves with their cursors. */
  async saveWith(run: RunState, records: StepRecord[]): Promise<number[]> {
    run.updated_at = new Date().toISOString();
    return this.deps.ledger.appendAll(run.run_id, records, () => this.deps.runs.writeInTransaction(run));
  }

  private controller(runId: string): AbortController {
    let c = this.cancels.get(runId);
    if (!c || c.signal.aborted) {
      c = c?.signal.aborted ? c : new AbortController();
      this.cancels.set(runId, c);
    }
    return c;
  }

  private streams(run: RunState): boolean {
    const root = run.root_run_id === run.run_id ? run : this.load(run.root_run_id);
    const runtime = ((root?.vars as Record<string, unknown> | undefined)?._runtime ?? {}) as Record<string, unknown>;
    return runtime.stream === true;
  }

  /** Where control goes when a branch ends: the innermost loop or sequence, else nowhere. */
  private controlReturn(run: RunState): string | null {
    const control = temp(run.vars as RunVars).control;
    return control.length ? control[control.length - 1]!.node : null;
  }

  /** Creates (or finds, on a replay) the child run an effect or a command launches; its id derives from `key`. */
  private async startChild(parent: RunState, key: string, payload: Record<string, unknown>): Promise<string> {
    const id = childRunId(key);
    if (this.load(id)) return id;
    const child = childRunState(parent, id, payload, () => this.deps.workspaces.record(parent.root_run_id, this.reachOf(parent)));
    await this.createRun(child);
    return id;
  }

  /** A TOOL_CALLS effect: the calls run in the root run's folder, under the workspace policy and the step's budgets. */
  private async runTools(run: RunState, payload: Record<string, unknown>): Promise<Record<string, unknown>> {
    const reach = this.reachOf(run);
    await this.deps.workspaces.ensureRunFolder(run.root_run_id, run.account, reach);
    const { calls, allowed } = toolCallsOf(payload, run.effect_index);
    const step = { policy: this.deps.workspaces, rootRunId: run.root_run_id, reach, limits: this.deps.toolLimits, signal: this.controller(run.run_id).signal };
    return runToolStep(step, calls, allowed);
  }

  private reachOf(run: RunState): RunReach {
    return reachOf(run.started_by_admin, this.deps.nonAdminWorkspace);
  }

  private async deliverEvent(waitKey: string, envelope: Record<string, unknown>): Promise<string[]> {
    const resumed: string[] = [];
    for (const stored of this.deps.runs.active()) {
      const run = this.load(stored.run_id)!;
      if (run.status !== 'waiting' || run.paused || run.waiting?.reason !== 'event' || run.waiting.wait_key !== waitKey) continue;
      const outcome = await this.lock.run(run.run_id, async () => {
        return this.resumeWith(this.load(run.run_id)!, envelope, waitKey);
      });
      if (outcome === 'resumed') resumed.push(run.run_id);
    }
    return resumed;
  }

  private async complete(run: RunState, output: Record<string, unknown>): Promise<boolean> {
    await this.finish(run, 'completed', output, null, stepRecord(run, run.current_node ?? 'end', 'completed', { result: { completed: true, output } }));
    return false;
  }

  private async fail(run: RunState, error: string): Promise<boolean> {
    await this.finish(run, 'failed', null, error, stepRecord(run, run.current_node ?? '', 'failed', { error }));
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
    const abandoned = this.memory.abandonedRecord(run);
    // The state as it ends; `run` itself flips only once the commit is durable, so a reader never sees an end the ledger lacks.
    const ended: RunState = { ...run, status, output, error, waiting: null, updated_at: new Date().toISOString() };
    try {
      await this.deps.ledger.endRun(run.run_id, [...(abandoned ? [abandoned] : []), ...(last ? [last] : []), statusRecord], status, (end) => {
        if (end.status !== status) this.deps.log.warn('run replayed to another end than its ledger records; the ledger wins', { run_id: run.run_id, recorded: end.status, replayed: status });
        ended.status = end.status as RunStatus;
        this.deps.runs.writeInTransaction(ended);
      });
    } catch (err) {
      // An output too large for a record: the run fails with the ledger's reason instead (a short record).
      if (err instanceof LedgerLimitError && error !== err.message) return this.finish(run, 'failed', null, err.message, stepRecord(run, run.current_node ?? '', 'failed', { error: err.message }));
      throw err;
    }
    Object.assign(run, { status: ended.status, output, error, waiting: null, updated_at: ended.updated_at });
    this.runFlows.forget(run.run_id);
    this.cancels.delete(run.run_id);
    this.cancelReasons.delete(run.run_id);
    this.live.delete(run.run_id);
    if (run.parent_run_id) this.deps.schedule(run.parent_run_id);
  }

  /** A parent waiting on this finished child gets `{sub_run_id, output}` (reference §3.3). */
  async resumeParentOf(child: RunState): Promise<void> {
    if (!child.parent_run_id || !isTerminal(child.status)) return;
    await this.lock.run(child.parent_run_id, async () => {
      const parent = this.load(child.parent_run_id!);
      if (!parent || parent.status !== 'waiting' || parent.waiting?.wait_key !== `subworkflow:${child.run_id}`) return;
      const output: Record<string, unknown> = { ...(child.output ?? {}) };
      if (child.status !== 'completed') {
        output.success = false;
        if (child.status === 'cancelled') output.cancelled = true;
        output.error = child.error;
      }
      await this.resumeWith(parent, { sub_run_id: child.run_id, output });
    });
  }

  /** The run's wait, for the runner's timers and parent repairs. */
  waitOf(runId: string): WaitState | null {
    return this.load(runId)?.waiting ?? null;
  }
}
