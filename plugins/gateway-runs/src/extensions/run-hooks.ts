/**
 * `runs.hooks` (issue 12, Contract 2): other plugins take part in a run's life without gateway-runs
 * knowing them — start checks (run by `POST /runs/start` before anything is stored) and listeners
 * told when a run wrote a file into its workspace.
 */
import { token, type Logger, type Principal } from '@keel/plugin-sdk';
import type { LaunchTags, RunEndedListener } from './run-launcher.js';

export interface StartCheckInput {
  principal: Principal;
  /** The session the start named; null when it named none (the run then opens its own). */
  sessionId: string | null;
  inputData: Record<string, unknown>;
  body: Record<string, unknown>;
  /** True when the start came through `runs.launcher` (another plugin), absent for `POST /runs/start`. */
  launched?: boolean;
  /** The tags the launch asked for (absent for `POST /runs/start`). */
  tags?: LaunchTags;
}

/** Throws an HttpError (400 with the seed's body) to refuse the start. */
export type StartCheck = (input: StartCheckInput) => Promise<void>;

/** A file a run wrote into its workspace. */
export interface ProducedFile {
  account: string;
  run_id: string;
  root_run_id: string;
  session_id: string | null;
  /** The node whose effect wrote it, when known. */
  node_id: string | null;
  /** The ledger cursor of the record that completed the writing step, when known. */
  ledger_cursor: number | null;
  /** The real path of the file as it was written (judged on the written descriptor). */
  real_path: string;
  /** The path relative to the run's workspace root (`/`-separated); the real path when outside it. */
  rel_path: string;
  content_type?: string;
}

/**
 * What a start preparer may change before the run is stored: its inputs (as `GET /runs/{id}/input_data`
 * shows them) and its variables (`vars._runtime.*` is where the gateway records what it resolved).
 */
export interface StartPreparation {
  principal: Principal;
  sessionId: string | null;
  runId: string;
  /** The run's inputs, mutable. */
  inputData: Record<string, unknown>;
  /** The run's variables (a copy of the inputs plus `_runtime`), mutable. */
  vars: Record<string, unknown>;
  /** True when the start came through `runs.launcher`, absent for `POST /runs/start`. */
  launched?: boolean;
  /**
   * How `GET /runs` will attribute the run, mutable: the launch's tags (empty for `POST /runs/start`);
   * a preparer may set them (a later turn of a discussion session). Tags `runs.launcher` would
   * refuse are logged and left out.
   */
  tags?: LaunchTags;
  /**
   * A one-off workspace layer for the run that is not stored in its inputs or variables (issue 15:
   * a discussion's read-only mount names a folder inside the data folder, which neither a non-admin
   * nor a run is ever told); when set it is used instead of `input_data.workspace`.
   */
  workspace?: Record<string, unknown>;
}

/**
 * Runs after every start check passed, before the run is stored. It records its outcome in `vars`
 * (for example `_runtime.skills_resolution`) and must not refuse the start: a failure it cannot
 * handle is logged and the run starts without it.
 */
export type StartPreparer = (start: StartPreparation) => Promise<void> | void;

/**
 * What a file listener made of a produced file (the artifacts plugin: the artifact it recorded), so
 * a node whose output names the artifact (the media nodes, reference runtime-nodes §10) can say which.
 */
export interface ProducedArtifact {
  artifact_id: string;
  content_type: string;
  size_bytes: number;
}

/** Told about a written file; may answer what it recorded of it (the first answer is the node's). */
export type FileProducedListener = (file: ProducedFile) => Promise<ProducedArtifact | void> | ProducedArtifact | void;

/** An external event an `emit_event` command delivered (after the runs waiting on it were resumed). */
export interface EmittedEvent {
  account: string;
  event_id: string;
  name: string;
  scope: string;
  session_id: string;
  payload: Record<string, unknown>;
  emitted_at: string;
  /** The command that emitted it. */
  command_id: string;
}

export type EventEmittedListener = (event: EmittedEvent) => Promise<void> | void;

/** A command sent to `POST /commands`, as the route received it (command_id filled). */
export interface CommandRequest {
  command_id: string;
  run_id: string;
  type: string;
  payload: Record<string, unknown>;
  client_id: string | null;
  /** False when the client sent no (or a blank) command_id and gateway-runs made one up (a target that needs the client's key refuses). */
  command_id_given?: boolean;
}

/**
 * Another plugin's claim on `POST /commands` (issue 15: `automation.*` types, and run types aimed
 * at an automation id): answers the command (its return value is the response body) or throws the
 * refusal; `undefined` leaves the command to the runs (the next target, then gateway-runs).
 */
export type CommandTarget = (command: CommandRequest, principal: Principal) => Promise<unknown> | unknown;

export interface RunHooks {
  addStartCheck(check: StartCheck): void;
  /** Adds a preparer run on every `POST /runs/start`, in registration order. */
  addStartPreparer(preparer: StartPreparer): void;
  /** Called after a run wrote a file into its workspace (agent write_file/edit_file, file nodes). */
  onFileProduced(listener: FileProducedListener): void;
  /** Called in the process executing runs after a root run ended (its end is durable). */
  onRunEnded(listener: RunEndedListener): void;
  /** Called in the process executing runs after an `emit_event` command was delivered. */
  onEventEmitted(listener: EventEmittedListener): void;
  /** Claims commands before gateway-runs reads them (command types or targets it owns). */
  addCommandTarget(target: CommandTarget): void;
}

export const runHooksToken = token<RunHooks>('runs.hooks');

/** The registry behind the token, and the two places gateway-runs calls it from. */
export class RunHooksRegistry implements RunHooks {
  private readonly checks: StartCheck[] = [];
  private readonly listeners: FileProducedListener[] = [];
  private readonly preparers: StartPreparer[] = [];
  private readonly ended: RunEndedListener[] = [];
  private readonly emitted: EventEmittedListener[] = [];
  private readonly commandTargets: CommandTarget[] = [];

  constructor(private readonly log: Logger) {}

  addStartCheck(check: StartCheck): void {
    this.checks.push(check);
  }

  onFileProduced(listener: FileProducedListener): void {
    this.listeners.push(listener);
  }

  addStartPreparer(preparer: StartPreparer): void {
    this.preparers.push(preparer);
  }

  onRunEnded(listener: RunEndedListener): void {
    this.ended.push(listener);
  }

  onEventEmitted(listener: EventEmittedListener): void {
    this.emitted.push(listener);
  }

  addCommandTarget(target: CommandTarget): void {
    this.commandTargets.push(target);
  }

  /** The first target's answer to a command, or undefined when none claims it. A target's refusal (thrown) is the answer. */
  async claimCommand(command: CommandRequest, principal: Principal): Promise<{ answer: unknown } | undefined> {
    for (const target of this.commandTargets) {
      const answer = await target(command, principal);
      if (answer !== undefined) return { answer };
    }
    return undefined;
  }

  /** Tells every listener a root run ended; a listener's failure is logged, never the run's. */
  async runEnded(run: Parameters<RunEndedListener>[0]): Promise<void> {
    for (const listener of this.ended) {
      try {
        await listener(run);
      } catch (err) {
        this.log.warn('a runs.hooks run-ended listener failed', { error: (err as Error).message ?? String(err), run_id: run.run_id });
      }
    }
  }

  /** Tells every listener an event was emitted; a listener's failure is logged, never the command's. */
  async eventEmitted(event: EmittedEvent): Promise<void> {
    for (const listener of this.emitted) {
      try {
        await listener(event);
      } catch (err) {
        this.log.warn('a runs.hooks event listener failed', { error: (err as Error).message ?? String(err), name: event.name });
      }
    }
  }

  /** Every preparer in order; one that throws is logged and skipped (a start is never blocked by one). */
  async prepareStart(start: StartPreparation): Promise<void> {
    for (const preparer of this.preparers) {
      try {
        await preparer(start);
      } catch (err) {
        this.log.warn('a runs.hooks start preparer failed; the run starts without it', { error: (err as Error).message ?? String(err), run_id: start.runId });
      }
    }
  }

  /** Every start check in registration order; the first refusal (thrown) ends the start. */
  async checkStart(input: StartCheckInput): Promise<void> {
    for (const check of this.checks) await check(input);
  }

  /**
   * Tells every listener about a written file and answers the first record one made of it (null
   * when none did). A listener's failure is logged, never the run's: the file is written whatever
   * another plugin makes of it.
   */
  async fileProduced(file: ProducedFile): Promise<ProducedArtifact | null> {
    let answer: ProducedArtifact | null = null;
    for (const listener of this.listeners) {
      try {
        const made = await listener(file);
        if (made && !answer) answer = made;
      } catch (err) {
        this.log.warn('a runs.hooks file listener failed', { error: (err as Error).message ?? String(err), run_id: file.run_id, rel_path: file.rel_path });
      }
    }
    return answer;
  }
}
