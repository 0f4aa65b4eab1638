/**
 * How the runner applies a command (reference §6.2): pause and cancel act on the whole run tree;
 * resume without an inner payload lifts a pause, with one it answers a wait (resume-rules.ts says
 * when a resume would change nothing: it is refused then); emit_event resumes the runs waiting on
 * that event; guidance goes to the live runs' inbox; compact_memory launches a summary child run.
 * A command that cannot apply throws: the runner logs it with the reason and moves on.
 */
import type { Logger } from '@keel/plugin-sdk';
import { isTerminal, type RunState } from '../runtime/run-state.js';
import type { RunStore } from '../runtime/run-store.js';
import type { ResumeOutcome, RunLock } from '../runtime/collaborators.js';
import type { CompactionCommand } from '../runtime/memory-compaction.js';
import { parseDuration } from '../flow/duration.js';
import { eventScope } from '../flow/event-keys.js';
import type { ScheduleMeta } from '../runtime/schedule.js';
import type { EmittedEvent } from '../extensions/run-hooks.js';
import type { CommandRecord } from './command-store.js';
import { isRecurrentScheduleWait, resumeRefusal, resumeWaitKey } from './resume-rules.js';

/** What applying commands needs of the runtime. */
export interface CommandTarget {
  lock: RunLock;
  load(runId: string): RunState | undefined;
  save(run: RunState): Promise<void>;
  resumeWith(run: RunState, payload: unknown, waitKey?: string): Promise<ResumeOutcome>;
  /** Ticks a running run, or arms a waiting run's wait_until. */
  wake(runId: string): void;
  abortInFlight(runId: string, reason?: string | null): void;
  cancel(run: RunState, reason: string | null): Promise<boolean>;
  /** Resumes every run of the account waiting on exactly this event wait key. */
  deliverEvent(account: string, waitKey: string, envelope: Record<string, unknown>): Promise<string[]>;
  requestCompaction(command: CompactionCommand): Promise<void>;
}

export class CommandApplier {
  constructor(
    private readonly runtime: CommandTarget,
    private readonly runs: Pick<RunStore, 'descendants'>,
    private readonly log: Logger,
    /** Told after an `emit_event` command was delivered (`runs.hooks` onEventEmitted); not waited for. */
    private readonly eventEmitted?: (event: EmittedEvent) => Promise<void>,
  ) {}

  async apply(command: CommandRecord): Promise<void> {
    const root = this.runtime.load(command.run_id);
    const payload = command.payload ?? {};
    const reason = typeof payload.reason === 'string' ? payload.reason : null;
    switch (command.type) {
      case 'pause':
        return this.eachInTree(root, async (run) => {
          if (isTerminal(run.status) || run.paused) return;
          Object.assign(run, { paused: true, pause_reason: reason, paused_at: new Date().toISOString() });
          await this.runtime.save(run);
        });
      case 'resume': {
        const refusal = resumeRefusal(this.tree(root), payload);
        if (refusal) throw new Error(refusal);
        if (payload.payload !== undefined) {
          const outcome = await this.runtime.lock.run(root!.run_id, () => this.runtime.resumeWith(this.runtime.load(root!.run_id)!, payload.payload, resumeWaitKey(payload)));
          if (outcome !== 'resumed') throw new Error(`resume of ${root!.run_id} refused: ${outcome}`);
          return;
        }
        await this.eachInTree(root, async (run) => {
          if (!run.paused) return;
          Object.assign(run, { paused: false, resumed_at: new Date().toISOString() });
          if (run.status === 'waiting' && run.waiting?.details?.kind === 'pause') {
            run.status = 'running';
            run.current_node = run.waiting.resume_to_node ?? run.current_node;
            run.waiting = null;
          }
          await this.runtime.save(run);
          // A running run ticks again; a wait_until whose time passed during the pause fires now.
          this.runtime.wake(run.run_id);
        });
        // A recurrent schedule waiting for its next occurrence runs it now (reference gateway-surfaces §8.3).
        await this.runtime.lock.run(root!.run_id, async () => {
          const run = this.runtime.load(root!.run_id)!;
          if (!isRecurrentScheduleWait(run)) return;
          run.waiting!.until = new Date().toISOString();
          await this.runtime.save(run);
          this.runtime.wake(run.run_id);
        });
        return;
      }
      case 'cancel': {
        const tree = this.tree(root);
        for (const run of tree) this.runtime.abortInFlight(run.run_id, reason);
        for (const run of tree.reverse()) await this.runtime.lock.run(run.run_id, () => this.runtime.cancel(this.runtime.load(run.run_id)!, reason));
        return;
      }
      case 'emit_event': {
        const name = String(payload.name ?? '');
        if (!name) throw new Error('emit_event: payload.name is required');
        if (!root) throw new Error(`emit_event: run ${command.run_id} is unknown`);
        // Reference §6.2: the scope's id from the payload, else the command's run (its workflow for `workflow`).
        const scope = eventScope(payload.scope);
        const scopeId = scope === 'global' ? 'global'
          : scope === 'workflow' ? String(payload.workflow_id ?? root.workflow_id)
          : scope === 'run' ? String(payload.run_id ?? command.run_id)
          : String(payload.session_id ?? payload.sessionId ?? command.run_id);
        const inner = payload.payload;
        const envelope = {
          event_id: String(payload.event_id ?? command.command_id),
          name,
          scope,
          session_id: String(payload.session_id ?? payload.sessionId ?? command.run_id),
          payload: inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? inner : { value: inner ?? null },
          emitted_at: String(payload.emitted_at ?? new Date().toISOString()),
          emitter: { source: 'external', client_id: command.client_id },
        };
        // Exact keys only (RN §7.1): an external event never reaches `*` listeners; only the command's account's runs.
        await this.runtime.deliverEvent(root.account, `evt:${scope}:${scopeId}:${name}`, envelope);
        // Awaited: the runner saves its cursor after this command, so the listeners (the automations'
        // event triggers) must have recorded the event first, or a crash in between loses it for good.
        // A repeat after a crash is theirs to recognise (event_id); a listener's failure is logged by the registry.
        await this.eventEmitted?.({ account: root.account, event_id: envelope.event_id, name, scope, session_id: envelope.session_id, payload: envelope.payload as Record<string, unknown>, emitted_at: envelope.emitted_at, command_id: command.command_id });
        return;
      }
      case 'inject_guidance':
      case 'conclude': {
        const text = String(payload.guidance ?? payload.text ?? payload.note ?? '');
        const live = this.tree(root).filter((r) => !isTerminal(r.status));
        if (!live.length) throw new Error(`${command.type}: no live run in the tree of ${command.run_id}`);
        for (const run of live) {
          await this.runtime.lock.run(run.run_id, async () => {
            const fresh = this.runtime.load(run.run_id)!;
            const runtime = (fresh.vars._runtime ??= {}) as Record<string, unknown>;
            const inbox = (runtime.inbox as Array<{ command_id?: string }>) ?? [];
            // Commands are applied at least once: a repeat after a crash finds its message already there.
            if (inbox.some((m) => m.command_id === command.command_id)) return;
            runtime.inbox = [...inbox, { role: 'system', kind: command.type === 'conclude' ? 'conclude' : 'guidance', content: text, command_id: command.command_id }];
            await this.runtime.save(fresh);
          });
        }
        return;
      }
      case 'update_schedule': {
        if (!root || root.builtin !== 'scheduler') throw new Error(`update_schedule: ${command.run_id} is not a scheduled run`);
        await this.runtime.lock.run(root.run_id, async () => {
          const run = this.runtime.load(root.run_id)!;
          const meta = (run.vars._meta as { schedule: ScheduleMeta }).schedule;
          if (typeof payload.interval === 'string') {
            const ms = parseDuration(payload.interval);
            if (ms === null) throw new Error(`update_schedule: interval '${payload.interval}' is not a duration`);
            Object.assign(meta, { interval: payload.interval, interval_ms: ms });
          }
          if (payload.repeat_count !== undefined) meta.repeat_count = payload.repeat_count === null ? null : Number(payload.repeat_count);
          if (payload.repeat_until !== undefined) meta.repeat_until = payload.repeat_until === null ? null : String(payload.repeat_until);
          meta.updated_at = new Date().toISOString();
          await this.runtime.save(run);
        });
        return;
      }
      case 'compact_memory':
        return this.runtime.requestCompaction(command);
      default:
        throw new Error(`${command.type} is not applicable to run ${command.run_id}`);
    }
  }

  private async eachInTree(root: RunState | undefined, fn: (run: RunState) => Promise<void>): Promise<void> {
    for (const run of this.tree(root)) await this.runtime.lock.run(run.run_id, () => fn(this.runtime.load(run.run_id)!));
  }

  /** The run and its descendants, breadth first, each in its current state. */
  private tree(root: RunState | undefined): RunState[] {
    if (!root) return [];
    const out: RunState[] = [root, ...this.runs.descendants(root.run_id).map((r) => this.runtime.load(r.run_id) ?? r)];
    if (out.length > 1000) this.log.warn('run tree larger than 1000 runs', { run_id: root.run_id });
    return out;
  }
}
