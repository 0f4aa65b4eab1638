/**
 * The small interfaces the runtime's parts know each other by: each part is handed, in its
 * constructor, only what it uses of another (not the whole class), so the parts are built in one
 * order with no part reaching back into the one that built it.
 */
import type { StepRecord } from '@keel/plugin-ledger';
import type { RunState } from './run-state.js';

/** Asks for a run to be ticked now, or its wait_until fired at `atMs`; dropped where no runner runs. */
export interface RunScheduler {
  schedule(runId: string, atMs?: number): void;
}

/** Serialises the work on one run (its steps and the commands aimed at it). */
export interface RunLock {
  run<T>(runId: string, fn: () => Promise<T> | T): Promise<T>;
}

/** A run's current state and how it is made durable. */
export interface RunPersistence {
  load(runId: string): RunState | undefined;
  save(run: RunState): Promise<void>;
  /** Appends the run's records and saves its state in one commit; resolves with their cursors. */
  saveWith(run: RunState, records: StepRecord[]): Promise<number[]>;
  /** Appends the run's records in one commit without its state; resolves with their cursors. */
  commitRecords(run: RunState, records: StepRecord[]): Promise<number[]>;
}

/** What a child run is started with: the flow (or built-in) it runs and its variables. */
export interface ChildRunRequest {
  workflow_id: string;
  /** A built-in child workflow (the agent loop, a memory summary) instead of one of the bundle's flows. */
  builtin?: string;
  vars?: Record<string, unknown>;
  /** The parent's conversation (`vars.context`) is the child's. */
  inherit_context?: boolean;
  /** The child's session (default: the parent's). */
  session_id?: string;
}

/** Creates (or finds, on a replay) the child run an effect or a command launches; its id derives from `key`. */
export interface ChildRunStarter {
  startChild(parent: RunState, key: string, request: ChildRunRequest): Promise<string>;
}

export type ResumeOutcome = 'resumed' | 'not_waiting' | 'wait_key_mismatch' | 'paused';

/** Resumes a waiting run (its lock held by the caller) with a payload: an answer, an event, a child's result. */
export interface RunResumer {
  /** `recorded`: fields added to the resume record's result (a child's failures). */
  resumeWith(run: RunState, payload: unknown, waitKey?: string, recorded?: Record<string, unknown>): Promise<ResumeOutcome>;
}

/** The cancel signal of the work a run has in flight. */
export interface RunSignalSource {
  signalOf(runId: string): AbortSignal;
}
