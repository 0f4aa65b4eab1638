/**
 * The `compact_memory` command (seed 000 §4.4, reference §6.2): a child run summarises the older
 * part of a live run's memory (`vars.context.messages`), then that part is replaced by one
 * `{role: 'system', kind: 'memory_summary', content, metadata: {compacted, by_run}}` message, the
 * most recent `keep_last` messages (and leading instructions) kept as they are.
 *
 * The parent's ledger notes it as a `memory_compact` effect with system key
 * `system:memory_compact:<command_id>`: `started` when the child is launched, `completed` (or
 * `failed`) when its summary is applied. A command with nothing to compact is one `completed`
 * record with `skipped: true`. The run's work goes on meanwhile; if its memory changes under the
 * compacted part before the summary is ready, nothing is replaced and the record says why.
 */
import { createHash } from 'node:crypto';
import type { LedgerStore, StepRecord } from '@keel/plugin-ledger';
import type { Logger } from '@keel/plugin-sdk';
import { memoryOf, pinnedInstructions, setMemory, type MemoryMessage } from './conversation-memory.js';
import type { ChildRunStarter, RunLock, RunPersistence, RunScheduler } from './collaborators.js';
import { MEMORY_COMPACTION_WORKFLOW, MEMORY_COMPACTOR, type CompactionJob } from './memory-summary.js';
import { childRunId, finishRecord, stepRecord } from './records.js';
import { isTerminal, type RunState } from './run-state.js';

export const DEFAULT_KEEP_LAST = 6;
const NODE = 'compact_memory';

export interface MemoryCompactionDeps {
  lock: RunLock;
  ledger: LedgerStore;
  log: Logger;
  states: RunPersistence;
  /** Launches the summary child run. */
  children: ChildRunStarter;
  scheduler: RunScheduler;
}

export interface CompactionCommand {
  command_id: string;
  run_id: string;
  payload: Record<string, unknown>;
}

/** A compaction under way, kept in the parent's `vars._memory` so a restart can finish it. */
interface PendingCompaction {
  command_id: string;
  child_run_id: string;
  /** Leading instruction messages kept ahead of the summary. */
  pinned: number;
  /** How many messages after them the summary replaces. */
  compacted: number;
  /** Of those messages, to notice a memory that changed while the child ran. */
  fingerprint: string;
  /** The parent's `started` record, finished when the summary is applied. */
  record: StepRecord;
}

interface MemoryState {
  pending: PendingCompaction | null;
  compactions: number;
}

export class CompactionRefused extends Error {}

export class MemoryCompaction {
  constructor(private readonly deps: MemoryCompactionDeps) {}

  /** Applies a `compact_memory` command: launches the child run, or notes why there is nothing to do. */
  async request(command: CompactionCommand): Promise<void> {
    const keepLast = keepLastOf(command.payload.keep_last);
    const reason = typeof command.payload.reason === 'string' ? command.payload.reason : null;
    await this.deps.lock.run(command.run_id, async () => {
      const run = this.deps.states.load(command.run_id);
      if (!run) throw new CompactionRefused(`compact_memory: run ${command.run_id} does not exist.`);
      if (isTerminal(run.status)) throw new CompactionRefused(`compact_memory: run ${run.run_id} is ${run.status}; only a live run's memory can be compacted.`);
      const state = memoryState(run);
      const key = `system:memory_compact:${command.command_id}`;
      const childKey = `memory_compact:${run.run_id}:${command.command_id}`;
      // Commands are applied at least once: a repeat after a crash finishes what the first began.
      if (this.deps.ledger.completedByKey(run.run_id, key)) return;
      if (state.pending?.command_id === command.command_id) {
        if (!this.deps.states.load(state.pending.child_run_id)) await this.launch(run, state.pending, childKey, reason);
        return;
      }

      const messages = memoryOf(run.vars);
      const pinned = pinnedInstructions(messages);
      const older = messages.slice(pinned, Math.max(pinned, messages.length - keepLast));
      const payload = { command_id: command.command_id, keep_last: keepLast, reason, messages_total: messages.length };
      if (state.pending) {
        return this.skip(run, key, payload, 'compaction_in_progress', `A compaction of this run's memory (child run ${state.pending.child_run_id}) is still running; this one was skipped.`);
      }
      if (older.length === 0) {
        return this.skip(run, key, payload, 'nothing_to_compact', `The run has ${messages.length} message(s) in memory and keep_last is ${keepLast}: there is nothing older to compact.`);
      }

      const childId = childRunId(childKey);
      const record = stepRecord(run, NODE, 'started', {
        effect: { type: 'memory_compact', payload: { ...payload, compacting: older.length, sub_run_id: childId }, result_key: null },
        idempotency_key: key,
      });
      state.pending = { command_id: command.command_id, child_run_id: childId, pinned, compacted: older.length, fingerprint: fingerprint(older), record };
      // The pending compaction and its `started` record are one commit before the child exists, so a
      // crash in between is finished by a repeat (which launches the child without recording again).
      try {
        await this.deps.states.saveWith(run, [record]);
      } catch (err) {
        state.pending = null; // not recorded (the ledger refused it): nothing is under way
        throw err;
      }
      await this.launch(run, state.pending, childKey, reason);
    });
  }

  /** The child of a compaction still pending on this run, if it has ended (then `settle` applies it). */
  endedChild(run: RunState | undefined): RunState | null {
    const pending = (run?.vars as { _memory?: MemoryState } | undefined)?._memory?.pending;
    const child = pending ? this.deps.states.load(pending.child_run_id) : undefined;
    return child && isTerminal(child.status) ? child : null;
  }

  /** Applies a finished compaction child's summary to its parent's memory (idempotent). */
  async settle(child: RunState): Promise<void> {
    if (child.builtin !== MEMORY_COMPACTOR || !child.parent_run_id || !isTerminal(child.status)) return;
    await this.deps.lock.run(child.parent_run_id, async () => {
      const parent = this.deps.states.load(child.parent_run_id!);
      if (!parent || isTerminal(parent.status)) return;
      const state = memoryState(parent);
      const pending = state.pending;
      if (!pending || pending.child_run_id !== child.run_id) return;
      const output = child.output ?? {};
      const summary = typeof output.summary === 'string' ? output.summary : '';
      const messages = memoryOf(parent.vars);
      const older = messages.slice(pending.pinned, pending.pinned + pending.compacted);
      let failure: string | null = null;
      if (child.status !== 'completed') failure = `The compaction run ${child.run_id} ended ${child.status}${child.error ? `: ${child.error}` : ''}; the memory was left as it was.`;
      else if (output.success === false || !summary) failure = `The compaction run ${child.run_id} produced no summary${output.error ? ` (${String(output.error)})` : ''}; the memory was left as it was.`;
      else if (older.length !== pending.compacted || fingerprint(older) !== pending.fingerprint) failure = "The run's memory changed while the summary was being written; nothing was replaced.";

      state.pending = null;
      const recorded = this.deps.ledger.completedByKey(parent.run_id, pending.record.idempotency_key!);
      if (failure) {
        // One commit: a crash cannot leave the failure recorded with the compaction still pending (a repeat would record it twice).
        await this.deps.states.saveWith(parent, [finishRecord(pending.record, 'failed', { error: failure, result: { compacted: 0, sub_run_id: child.run_id } })]);
        this.deps.log.warn('memory compaction not applied', { run_id: parent.run_id, child_run_id: child.run_id, reason: failure });
        return;
      }
      const summaryMessage: MemoryMessage = { role: 'system', kind: 'memory_summary', content: summary, metadata: { compacted: pending.compacted, by_run: child.run_id } };
      const after = [...messages.slice(0, pending.pinned), summaryMessage, ...messages.slice(pending.pinned + pending.compacted)];
      setMemory(parent.vars, after);
      state.compactions++;
      // The record and the new memory are one commit (a state saved by an older version may have the record already).
      if (recorded) await this.deps.states.save(parent);
      else {
        await this.deps.states.saveWith(parent, [finishRecord(pending.record, 'completed', {
          result: { compacted: pending.compacted, pinned: pending.pinned, kept: after.length - pending.pinned - 1, messages_before: messages.length, messages_after: after.length, sub_run_id: child.run_id, summary: summaryMessage },
        })]);
      }
    });
  }

  /** Creates the summary child run (its `started` record is already committed with the pending state). */
  private async launch(run: RunState, pending: PendingCompaction, childKey: string, reason: string | null): Promise<void> {
    const messages = memoryOf(run.vars).slice(pending.pinned, pending.pinned + pending.compacted);
    const job: CompactionJob = { messages, parent_run_id: run.run_id, reason };
    await this.deps.children.startChild(run, childKey, { workflow_id: MEMORY_COMPACTION_WORKFLOW, builtin: MEMORY_COMPACTOR, vars: { _compaction: job } });
    this.deps.scheduler.schedule(pending.child_run_id);
  }

  private async skip(run: RunState, key: string, payload: Record<string, unknown>, reasonCode: string, message: string): Promise<void> {
    await this.deps.states.commitRecords(run, [stepRecord(run, NODE, 'completed', {
      effect: { type: 'memory_compact', payload, result_key: null },
      result: { compacted: 0, skipped: true, reason_code: reasonCode, message },
      idempotency_key: key,
    })]);
    this.deps.log.info('compact_memory applied as a no-op', { run_id: run.run_id, command_id: payload.command_id, reason_code: reasonCode });
  }
}

/** When a run ends with a compaction still running: its record is closed as failed (appended with the run's last records). */
export function abandonedCompaction(run: RunState): StepRecord | null {
  const state = (run.vars as { _memory?: MemoryState })._memory;
  const pending = state?.pending;
  if (!pending) return null;
  state.pending = null;
  return finishRecord(pending.record, 'failed', { error: 'The run ended before the memory compaction finished.', result: { compacted: 0, sub_run_id: pending.child_run_id } });
}

function memoryState(run: RunState): MemoryState {
  const vars = run.vars as { _memory?: MemoryState };
  vars._memory ??= { pending: null, compactions: 0 };
  return vars._memory;
}

function keepLastOf(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_KEEP_LAST;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new CompactionRefused(`compact_memory: payload.keep_last must be a whole number ≥ 0 (got ${JSON.stringify(value)}).`);
  return n;
}

function fingerprint(messages: MemoryMessage[]): string {
  return createHash('sha256').update(JSON.stringify(messages.map((m) => [m.role, m.content, m.kind ?? null]))).digest('hex');
}
