/**
 * Runs VisualFlow graphs durably. This file builds the runtime's parts, each given in its
 * constructor what it needs of the others (collaborators.ts), in an order with no cycle:
 * run states → lifecycle (waits, resumes, ends) → child runs, event delivery, tools → the
 * effect executor → memory compaction → the stepper. After a crash a run continues from its last
 * saved state; replayed effects find their completed records and are not run twice.
 *
 * `Runtime` is what the runner, the command applier and the routes see of it.
 */
import type { ProducedArtifact, ProducedFile } from '../extensions/run-hooks.js';
import type { InferenceService } from '@keel/plugin-inference';
import type { LedgerStore, LiveBus } from '@keel/plugin-ledger';
import type { Logger } from '@keel/plugin-sdk';
import type { BundleRegistry } from '../bundles/bundle-registry.js';
import type { CatalogStore } from '../catalog/catalog-store.js';
import type { NodeTypes } from '../flow/node-types.js';
import type { ToolLimits } from '../workspace/tool-limits.js';
import type { FolderUsage } from '../workspace/folder-quota.js';
import type { WorkspaceService } from '@keel/plugin-workspaces';
import { ChildRuns } from './child-run.js';
import type { ResumeOutcome, RunScheduler } from './collaborators.js';
import { EffectExecutor } from './effect-executor.js';
import { EventDelivery } from './event-delivery.js';
import { KeyedLock } from './keyed-lock.js';
import { MemoryCompaction, type CompactionCommand } from './memory-compaction.js';
import type { RetryPolicy } from './retry-policy.js';
import type { LlmOutputSettings } from './llm-output.js';
import { RunFlows } from './run-flows.js';
import type { CompiledFlow } from '../flow/compile-flow.js';
import { RunLifecycle } from './run-lifecycle.js';
import { RunLimits } from './run-limits.js';
import { RunSignals } from './run-signals.js';
import type { RunState } from './run-state.js';
import { RunStates } from './run-states.js';
import { RunStepper } from './run-stepper.js';
import type { RunStore } from './run-store.js';
import { RunTools } from './run-tools.js';
import type { AgentToolRegistry } from '../extensions/agent-tools.js';

export interface RuntimeDeps {
  /** Whether runs are kept in memory now: only while this process's runner executes them (elsewhere LMDB is the truth). */
  cacheLive: () => boolean;
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
  workspaces: WorkspaceService;
  /** The file tools' size and time budgets (`workspace.*`). */
  toolLimits: ToolLimits;
  /** The run folders' usage for their quota, shared with other writers of run folders (export); made here when absent. */
  folderUsage?: FolderUsage;
  /** Whether the agent loop's system prompt describes its file tools (`agentToolPrompt`). */
  agentToolPrompt?: boolean;
  /** Tools other plugins registered (`agentToolsToken`): agents and `call_tool` nodes may call them. */
  agentTools?: AgentToolRegistry;
  /** Steps and variable size per run (`limits.*`). */
  limits?: RunLimits;
  /** Output-token bounds of LLM calls (`llm.*`). */
  llmOutput?: LlmOutputSettings;
  /** Where a run that needs ticking is announced (the runner's queue). */
  scheduler: RunScheduler;
  /** The node types flows may use: gateway-runs' own and those other plugins registered. */
  nodeTypes: NodeTypes;
  /** The `runs.hooks` listeners told about files a run wrote. */
  fileProduced?: (file: ProducedFile) => Promise<ProducedArtifact | null | void>;
  /** Told after a root run's end is committed (the `runs.hooks` run-ended listeners); must not throw or wait. */
  rootEnded?: (run: RunState) => void;
}

export class Runtime {
  readonly lock = new KeyedLock();
  private readonly states: RunStates;
  private readonly signals = new RunSignals();
  private readonly lifecycle: RunLifecycle;
  private readonly children: ChildRuns;
  private readonly events: EventDelivery;
  private readonly memory: MemoryCompaction;
  private readonly stepper: RunStepper;
  private readonly flows: RunFlows;
  private readonly cacheLive: () => boolean;

  constructor(deps: RuntimeDeps) {
    const { lock, signals } = this;
    const { runs, ledger, hub, log, scheduler, workspaces, nodeTypes } = deps;
    const states = new RunStates({ cacheLive: deps.cacheLive, runs, ledger, workspaces });
    const flows = new RunFlows(deps.bundles, deps.catalog, nodeTypes, log);
    const lifecycle = new RunLifecycle({ lock, states, signals, runs, ledger, hub, flows, scheduler, log, rootEnded: deps.rootEnded });
    const limits = deps.limits ?? new RunLimits();
    const children = new ChildRuns({ lock, states, resumer: lifecycle, workspaces, flows, maxFailuresListed: limits.maxChildFailuresListed, maxRunDepth: limits.maxRunDepth, maxRunsPerTree: limits.maxRunsPerTree, treeSize: (root, max) => runs.descendantCount(root, max) });
    const events = new EventDelivery({ runs, states, lock, resumer: lifecycle });
    const tools = new RunTools({ workspaces, toolLimits: deps.toolLimits, signals, fileProduced: deps.fileProduced, usage: deps.folderUsage, agentTools: deps.agentTools });
    const executor = new EffectExecutor({
      ledger,
      records: states,
      hub,
      inference: deps.inference,
      children,
      events,
      tools,
      signals,
      streaming: states,
      retry: deps.retry,
      nodeTypes,
      ...(deps.llmOutput ? { llmOutput: deps.llmOutput } : {}),
    });
    this.states = states;
    this.flows = flows;
    this.cacheLive = deps.cacheLive;
    this.lifecycle = lifecycle;
    this.children = children;
    this.events = events;
    this.memory = new MemoryCompaction({ lock, ledger, log, states, children, scheduler });
    this.stepper = new RunStepper({
      lock,
      states,
      lifecycle,
      executor,
      flows,
      limits,
      listeners: children,
      nodeTypes,
      scheduler,
      agentToolPrompt: deps.agentToolPrompt === true,
      agentTools: deps.agentTools,
    });
  }

  /** The run's current state (the in-memory one while this process works on it). */
  load(runId: string): RunState | undefined {
    return this.states.load(runId);
  }

  /**
   * Creates a run with its ledger (and, for a root run, its workspace folder). `flow`: the compiled
   * flow its start resolved, kept for the run where this process executes it, so its first step
   * does not look the bundle up again.
   */
  async createRun(run: RunState, flow?: CompiledFlow): Promise<void> {
    await this.states.createRun(run);
    if (flow && this.cacheLive()) this.flows.remember(run.run_id, flow);
  }

  save(run: RunState): Promise<void> {
    return this.states.save(run);
  }

  /** Ticks a run until it waits, ends or has taken a slice of steps or time. */
  tick(runId: string): Promise<void> {
    return this.stepper.tick(runId);
  }

  /** Ticks a running run, or arms a waiting run's wait_until. */
  wake(runId: string): void {
    this.lifecycle.wake(runId);
  }

  /** A wait_until's timer fired. */
  fireWait(runId: string): Promise<void> {
    return this.lifecycle.fireWait(runId);
  }

  /** Resumes a waiting run (its lock held by the caller) with a payload. */
  resumeWith(run: RunState, payload: unknown, waitKey?: string): Promise<ResumeOutcome> {
    return this.lifecycle.resumeWith(run, payload, waitKey);
  }

  /** Aborts whatever the run is doing in flight (an LLM call stops at the next token). */
  abortInFlight(runId: string, reason?: string | null): void {
    this.signals.abort(runId, reason);
  }

  /** Ends a run as cancelled (its lock held by the caller). */
  cancel(run: RunState, reason: string | null): Promise<boolean> {
    return this.lifecycle.cancel(run, reason);
  }

  /** Fails a run whose step threw an error nothing expected. */
  failUnexpected(runId: string, err: unknown): Promise<void> {
    return this.lifecycle.failUnexpected(runId, err);
  }

  /** A parent waiting on this finished child gets `{sub_run_id, output}`. */
  resumeParentOf(child: RunState): Promise<void> {
    return this.children.resumeParentOf(child);
  }

  /** Resumes every run of the account waiting on exactly this event wait key (the external command). */
  async deliverEvent(account: string, waitKey: string, envelope: Record<string, unknown>): Promise<string[]> {
    return (await this.events.deliver(account, waitKey, envelope)).delivered_to;
  }

  /** Applies a `compact_memory` command. */
  requestCompaction(command: CompactionCommand): Promise<void> {
    return this.memory.request(command);
  }

  /** Applies the summary of a compaction of this run whose child has ended, if there is one. */
  async settleCompaction(run: RunState | undefined): Promise<void> {
    const child = this.memory.endedChild(run);
    if (child) await this.memory.settle(child);
  }
}
