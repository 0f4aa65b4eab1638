/**
 * Variant `stand-in`: a `runs.launcher` that starts nothing (given through the kernel's token
 * overrides). It records each launch (when it came, on the injected clock and in process time,
 * and the tick it was for), answers the run as completed on the next turn of the event loop and
 * tells `runs.hooks` so, as gateway-runs does when a root run ends. What the benchmark then measures
 * is the scheduler alone: the wake index, the admission transaction, the occurrence rows, the
 * launch call and the run-end step, never a run.
 */
import type { Principal } from '@keel/plugin-sdk';
import type { LaunchedWorkflow, LaunchRequest, LaunchResult, LaunchTarget, RunHooks, RunLauncher, RunOutcome } from '@keel/plugin-gateway-runs';
import type { BenchClock } from './bench-clock.js';

/** One launch as the stand-in saw it. */
export interface LaunchSeen {
  runId: string;
  automationId: string;
  tick: number | null;
  /** Injected-clock time of the launch call minus the tick's `scheduled_at`. */
  latenessMs: number;
  /** `performance.now()` of the call (to count the fires inside the measured window). */
  atPerfMs: number;
}

/** The part of gateway-runs' hooks registry that tells listeners a root run ended. */
interface RunEndedTeller {
  runEnded(run: RunOutcome & { automation_id: string | null; role: string | null; occurrence_index: number | null }): Promise<void>;
}

export class RecordingLauncher implements RunLauncher {
  readonly launches: LaunchSeen[] = [];
  private readonly runs = new Map<string, RunOutcome>();
  private readonly listeners: Array<() => void> = [];
  private executing = false;
  private hooks: RunEndedTeller | null = null;
  /** Runs launched and not yet told ended. */
  open = 0;

  constructor(private readonly clock: BenchClock) {}

  /** The hooks registry the run ends are told to (resolved once the kernel booted). */
  useHooks(hooks: RunHooks): void {
    this.hooks = hooks as unknown as RunEndedTeller;
  }

  /** Makes this process "execute runs": the engine's loop starts now. */
  execute(): void {
    this.executing = true;
    for (const listener of this.listeners.splice(0)) listener();
  }

  resolve(_principal: Principal, target: LaunchTarget): LaunchedWorkflow {
    const bundleId = target.bundle_id ?? 'bench';
    return { workflow_id: `${bundleId}:${target.flow_id ?? 'main'}`, bundle_id: bundleId, bundle_version: target.bundle_version ?? '1.0.0', flow_id: target.flow_id ?? 'main', registry_scope: 'account', name: bundleId, source: 'client', interface: null };
  }

  async launch(request: LaunchRequest): Promise<LaunchResult> {
    const atPerfMs = performance.now();
    const nowMs = this.clock.nowMs();
    const trigger = request.inputData.trigger as { scheduled_at?: string; tick?: number } | undefined;
    const resolved = this.resolve(request.principal, request.target);
    if (this.runs.has(request.runId)) return { run_id: request.runId, resolved_workflow: resolved, created: false };
    const scheduledMs = trigger?.scheduled_at ? Date.parse(trigger.scheduled_at) : Number.NaN;
    this.launches.push({ runId: request.runId, automationId: request.tags?.automation_id ?? '', tick: trigger?.tick ?? null, latenessMs: nowMs - scheduledMs, atPerfMs });
    const iso = new Date(nowMs).toISOString();
    const run: RunOutcome = { run_id: request.runId, account: request.principal.account, session_id: request.sessionId, status: 'running', output: null, error: null, created_at: iso, updated_at: iso, wait: null, workspace_root: null };
    this.runs.set(request.runId, run);
    this.open++;
    setImmediate(() => void this.end(run, request));
    return { run_id: request.runId, resolved_workflow: resolved, created: true };
  }

  async cancel(): Promise<void> {}

  outcome(runId: string): RunOutcome | null {
    return this.runs.get(runId) ?? null;
  }

  executesRuns(): boolean {
    return this.executing;
  }

  whenExecuting(listener: () => void): void {
    if (this.executing) listener();
    else this.listeners.push(listener);
  }

  private async end(run: RunOutcome, request: LaunchRequest): Promise<void> {
    run.status = 'completed';
    run.output = { response: 'ok' };
    run.updated_at = this.clock.now().toISOString();
    try {
      await this.hooks?.runEnded({ ...run, automation_id: request.tags?.automation_id ?? null, role: request.tags?.role ?? null, occurrence_index: request.tags?.occurrence_index ?? null });
    } finally {
      this.open--;
    }
  }
}
