/**
 * Takes a run step by step under its lock: pure steps in memory, effects through the effect
 * executor, each effect's records committed with the run's new state in one commit (a `buffered`
 * effect's staged for the run's next commit instead: effect-durability.ts). A tick ends when the
 * run waits or ends, or after a slice of steps or time: then what is staged is committed and the
 * run is rescheduled.
 */
import { LedgerLimitError } from '@keel/plugin-ledger';
import { isContributed, type ContributedEffect, type EffectRequest } from '../flow/effect-requests.js';
import { step, type StepOutcome } from '../flow/interpreter.js';
import { eventListenerNodes } from '../flow/compile-flow.js';
import { isEffectNode } from '../flow/effect-nodes.js';
import { temp, type RunVars } from '../flow/node-io.js';
import { sideEffectsOf, UnsupportedNodeError, type EffectNodeType, type NodeTypes } from '../flow/node-types.js';
import type { RunLock, RunPersistence, RunScheduler } from './collaborators.js';
import { appendLlmTurn } from './conversation-memory.js';
import type { EffectExecutor, PerformedEffect } from './effect-executor.js';
import { compactionStep, MEMORY_COMPACTOR } from './memory-summary.js';
import { agentStep } from './react-agent.js';
import type { AgentToolRegistry } from '../extensions/agent-tools.js';
import { FlowMissingError, type RunFlows } from './run-flows.js';
import type { RunLifecycle } from './run-lifecycle.js';
import { UNKNOWN_ADDITIONS, type RunLimits } from './run-limits.js';
import { terminalOutput } from './run-outcomes.js';
import type { ChildRuns } from './child-run.js';
import type { RunState } from './run-state.js';
import type { RunStates } from './run-states.js';
import { scheduleStep } from './schedule.js';

const STEPS_PER_SLICE = 200;
/**
 * A slice also ends after this long: a step costs as much as its run's variables are big (saving
 * them), so 200 steps of a run holding megabytes held the event loop for seconds, every request
 * and every other run waiting.
 */
const SLICE_MS = 20;
/** A contributed node's work that outlasted a slice's time (`showingStaged`). */
const SLOW = Symbol('slow');

export interface RunStepperDeps {
  lock: RunLock;
  states: Pick<RunPersistence, 'load' | 'save' | 'saveWith'> & Pick<RunStates, 'stage' | 'check' | 'flush' | 'stagedOf'>;
  /** Ends, pauses and cancellations. */
  lifecycle: Pick<RunLifecycle, 'complete' | 'fail' | 'endCancelled' | 'toPauseWait'>;
  executor: Pick<EffectExecutor, 'perform' | 'performUnrecorded'>;
  flows: Pick<RunFlows, 'of' | 'assertSupported'>;
  /** Steps, variable size and processing time per run (`limits.*`). */
  limits: RunLimits;
  nodeTypes: NodeTypes;
  scheduler: RunScheduler;
  /** Whether the agent loop's system prompt describes its file tools (`agentToolPrompt`). */
  agentToolPrompt: boolean;
  /** Tools other plugins registered (`agentToolsToken`). */
  agentTools?: AgentToolRegistry;
  /** Starts the `on_event` listener runs of a root run (RN §7.2). */
  listeners: Pick<ChildRuns, 'startListener'>;
}

export class RunStepper {
  constructor(private readonly deps: RunStepperDeps) {}

  /** Ticks a run until it waits, ends or has taken a slice of steps or time (then it is rescheduled). */
  async tick(runId: string): Promise<void> {
    const endsAt = performance.now() + SLICE_MS;
    for (let steps = 0; steps < STEPS_PER_SLICE && (steps === 0 || performance.now() < endsAt); steps++) {
      const more = await this.deps.lock.run(runId, () => this.stepOnce(runId));
      if (!more) return;
    }
    // The slice ends: what its steps staged is committed before the run waits for its next turn.
    await this.deps.lock.run(runId, async () => {
      const run = this.deps.states.load(runId);
      if (run) await this.deps.states.flush(run);
    });
    this.deps.scheduler.schedule(runId);
  }

  /** One step; false when the run stopped being runnable. */
  private async stepOnce(runId: string): Promise<boolean> {
    const { lifecycle } = this.deps;
    const run = this.deps.states.load(runId);
    if (!run || run.status !== 'running') return false;
    if (run.paused) {
      await lifecycle.toPauseWait(run);
      return false;
    }
    // Stepping is synchronous work on the event loop: its wall time is the processing time it costs (`limits.maxRunCpuMs`).
    const began = performance.now();
    let outcome: StepOutcome | ReturnType<typeof agentStep> | ReturnType<typeof scheduleStep> | ReturnType<typeof compactionStep>;
    // A root run's first step starts its flow's event listeners, each ticked to its wait before the root can emit.
    if (run.builtin === null && run.parent_run_id === null && run.current_node === null) await this.startListeners(run);
    const control = run.builtin === null ? temp(run.vars as RunVars).control : [];
    const frameBefore = control[control.length - 1];
    try {
      if (run.builtin === 'react_agent') {
        outcome = agentStep(run, { toolPrompt: this.deps.agentToolPrompt, agentTools: this.deps.agentTools });
      } else if (run.builtin === 'scheduler') {
        outcome = scheduleStep(run);
      } else if (run.builtin === MEMORY_COMPACTOR) {
        outcome = compactionStep(run);
      } else {
        const flow = this.deps.flows.of(run);
        const entry = run.entry_node ?? flow.entry;
        if (run.current_node === null) run.current_node = entry;
        if (run.effect_index === 0 && !temp(run.vars as RunVars).node_outputs[entry]) this.deps.flows.assertSupported(flow, entry);
        outcome = step(flow, run.vars as RunVars, run.current_node, run.run_id, this.deps.nodeTypes, run.account, `${run.bundle_id}@${run.bundle_version}`);
      }
    } catch (err) {
      // The failed record names the node that cannot run, not the entry (issue 13 item 5).
      if (err instanceof UnsupportedNodeError) return lifecycle.fail(run, err.message, { node: err.node });
      if (err instanceof FlowMissingError) return lifecycle.fail(run, err.message);
      // An error read into an effect node fails the run as the origin's runner does with a tick exception (RN §2 rule 5).
      if (this.effectNodeAt(run)) return lifecycle.fail(run, exceptionText(err), { idempotencyKey: `system:tick_exception:${run.run_id}` });
      // A failing non-effect node ends the run with success: false (reference §2.5 rule 11), noted in `_flow_error` as the origin does.
      run.vars._flow_error = (err as Error).message;
      run.vars._flow_error_node = run.current_node;
      return lifecycle.complete(run, { success: false, error: (err as Error).message, node: run.current_node });
    }

    // A runaway run (too many steps, variables grown too large) stops here, before it writes anything more.
    // What the step added to the variables: a flow step's output and a loop's new items; a built-in run's steps are measured whole.
    const frameAfter = control[control.length - 1];
    // A node that changed the run beyond its output (`applyToRun`) is measured whole too.
    const measureAll = run.builtin !== null || (outcome.kind === 'goto' && 'varsChanged' in outcome && outcome.varsChanged);
    const added = measureAll ? UNKNOWN_ADDITIONS : [outcome.kind === 'goto' ? outcome.output : null, frameAfter !== frameBefore ? (frameAfter?.items ?? null) : null];
    const at = 'from' in outcome ? outcome.from : 'node' in outcome ? outcome.node : run.current_node;
    const over = this.deps.limits.afterStep(run, at, added) ?? this.deps.limits.afterCpu(run, at, performance.now() - began);
    if (over) return lifecycle.fail(run, over);

    if (outcome.kind === 'complete') return lifecycle.complete(run, outcome.output);
    if (outcome.kind === 'goto') {
      const next = outcome.node ?? controlReturn(run);
      if (next === null) return lifecycle.complete(run, terminalOutput('last' in outcome ? outcome.last : outcome.output));
      run.current_node = next;
      return true;
    }
    run.current_node = outcome.node;
    const unrecorded = isContributed(outcome.effect) ? this.deps.nodeTypes.effect(outcome.effect.type) : undefined;
    // A contributed node's work may take long (a code node, a PDF, an embedding) and commits nothing before it.
    const mayHoldBack = unrecorded !== undefined && (unrecorded.recorded === false || sideEffectsOf(unrecorded, (outcome.effect as ContributedEffect).payload) === 'local');
    if (unrecorded && unrecorded.recorded === false) return this.performUnrecorded(run, outcome.node, outcome.effect as ContributedEffect, unrecorded);
    try {
      const work = this.deps.executor.perform(run, outcome.node, outcome.effect);
      const performed = await (mayHoldBack ? this.showingStaged(run, work) : work);
      run.effect_index++;
      return await this.afterEffect(run, outcome.node, outcome.effect, performed);
    } catch (err) {
      // The ledger refused the effect's record (too large, or the run's ledger is full): the run fails with why.
      if (err instanceof LedgerLimitError) return lifecycle.fail(run, err.message);
      throw err;
    }
  }

  /** Starts the root's listener runs (none when the flow cannot run: its first step fails with why); a listener that cannot start is left out, as in the origin. */
  private async startListeners(root: RunState): Promise<void> {
    let nodes: string[];
    try {
      const flow = this.deps.flows.of(root);
      nodes = eventListenerNodes(flow);
      if (nodes.length) this.deps.flows.assertSupported(flow);
    } catch {
      return;
    }
    for (const node of nodes) {
      let listener: string;
      try {
        listener = await this.deps.listeners.startListener(root, node);
      } catch {
        continue;
      }
      await this.tick(listener);
    }
  }

  /** Whether the run's current node performs an effect (a plain node's error completes the run instead). */
  private effectNodeAt(run: RunState): boolean {
    if (run.builtin !== null || run.current_node === null) return false;
    let type: string;
    try {
      type = this.deps.flows.of(run).type(run.current_node);
    } catch {
      return false;
    }
    if (isEffectNode(type) || type === 'on_event' || type === 'on_schedule') return true;
    const contributed = this.deps.nodeTypes.effect(type);
    return contributed !== undefined && contributed.recorded !== false;
  }

  /**
   * A node without ledger records (`recorded: false`): its result goes to the pins at once; one that
   * fails ends the run as a failing plain node does (completed with `success: false` and the node).
   */
  private async performUnrecorded(run: RunState, nodeId: string, effect: ContributedEffect, type: EffectNodeType): Promise<boolean> {
    const outcome = await this.showingStaged(run, this.deps.executor.performUnrecorded(run, nodeId, effect, type));
    if (outcome.status === 'completed') {
      temp(run.vars as RunVars).effects[nodeId] = outcome.result;
      return true;
    }
    if (outcome.status === 'cancelled') return this.deps.lifecycle.endCancelled(run);
    run.vars._flow_error = outcome.record.error ?? null;
    run.vars._flow_error_node = nodeId;
    return this.deps.lifecycle.complete(run, { ...outcome.record, node: nodeId });
  }

  /**
   * Awaits a contributed node's work; when it is still at work after a slice's time, what earlier
   * steps staged is committed meanwhile (with the state, which the work does not change): answers
   * given before a slow node are shown while it works, and a fast one costs no commit of its own.
   */
  private async showingStaged<T>(run: RunState, work: Promise<T>): Promise<T> {
    if (!this.deps.states.stagedOf(run.run_id).length) return work;
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<typeof SLOW>((resolve) => (timer = setTimeout(resolve, SLICE_MS, SLOW)));
    const first = await Promise.race([work, slow]).finally(() => clearTimeout(timer));
    if (first === SLOW) await this.deps.states.flush(run);
    return work;
  }

  private async afterEffect(run: RunState, nodeId: string, effect: EffectRequest, performed: PerformedEffect): Promise<boolean> {
    const { outcome: result, records, afterCommit } = performed;
    const t = temp(run.vars as RunVars);
    if (result.status === 'completed') {
      // Measured before the result lands: a record the ledger refuses fails the run with the variables as they were.
      if (performed.durability === 'buffered' && !afterCommit) this.deps.states.stage(run, records);
      else this.deps.states.check(run, records);
      t.effects[nodeId] = result.result;
      // A flow's llm_call with include_context adds its turn to the memory (the agent loop keeps its own).
      if (!isContributed(effect) && effect.type === 'llm_call' && effect.payload.include_context && run.builtin === null) {
        appendLlmTurn(run.vars, nodeId, effect.payload, result.result);
      }
      if (performed.durability !== 'buffered' || afterCommit) await this.commit(run, records, afterCommit);
      return true;
    }
    if (result.status === 'waiting') {
      // The live state says `waiting` only once the wait's records are durable: a reader never sees a wait the ledger lacks.
      const waiting: RunState = { ...run, status: 'waiting', waiting: result.wait };
      await this.commit(waiting, records, afterCommit);
      Object.assign(run, { status: waiting.status, waiting: waiting.waiting, updated_at: waiting.updated_at });
      if (result.wait.reason === 'until' && result.wait.until) this.deps.scheduler.schedule(run.run_id, Date.parse(result.wait.until));
      if (result.wait.reason === 'subworkflow') this.deps.scheduler.schedule(String(result.wait.details?.sub_run_id));
      return false;
    }
    if (result.cancelled) return this.deps.lifecycle.endCancelled(run);
    return this.deps.lifecycle.fail(run, result.error);
  }

  /** The effect's records and the run's new state in one commit (behind anything staged), then what was owed after it. */
  private async commit(run: RunState, records: PerformedEffect['records'], afterCommit: PerformedEffect['afterCommit']): Promise<void> {
    const cursors = await this.deps.states.saveWith(run, records);
    if (afterCommit && cursors.length) afterCommit(cursors[cursors.length - 1]!);
  }
}

/** `<ExceptionType>: <message>`, as the origin's runner records an exception escaping a tick. */
function exceptionText(err: unknown): string {
  if (err instanceof Error) return `${err.name || 'Error'}: ${err.message}`;
  return `Error: ${String(err)}`;
}

/** Where control goes when a branch ends: the innermost loop or sequence, else nowhere. */
function controlReturn(run: RunState): string | null {
  const control = temp(run.vars as RunVars).control;
  return control.length ? control[control.length - 1]!.node : null;
}
