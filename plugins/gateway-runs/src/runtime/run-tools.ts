/** A TOOL_CALLS effect: the calls run in the root run's folder, under the workspace policy and the step's budgets. */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { inside } from '@keel/plugin-workspaces';
import type { AgentToolRegistry } from '../extensions/agent-tools.js';
import type { ProducedArtifact, ProducedFile } from '../extensions/run-hooks.js';
import type { ToolCallsPayload } from '../flow/effect-requests.js';
import type { ToolLimits } from '../workspace/tool-limits.js';
import { runToolStep, toolCallsOf } from '../workspace/tool-step.js';
import { writeWorkspaceFile } from '../workspace/file-tools.js';
import type { WorkspaceService } from '@keel/plugin-workspaces';
import { FolderUsage } from '../workspace/folder-quota.js';
import { runWorkspaceOf } from '../workspace/run-workspace.js';
import type { RunSignalSource } from './collaborators.js';
import type { RunState } from './run-state.js';

/** Runs a TOOL_CALLS payload's calls in the run's workspace: `{mode: 'executed', results}`. */
export interface ToolRunner {
  /** `wrote` is told the real path of each file the calls wrote (also when the step then fails). */
  runTools(run: RunState, payload: ToolCallsPayload, wrote?: (realPath: string) => void): Promise<Record<string, unknown>>;
  /** Tells the `runs.hooks` listeners about files a step wrote, once its ledger record is stored (`cursor`). */
  announceWritten(run: RunState, nodeId: string | null, cursor: number | null, files: WrittenFile[]): Promise<void>;
  /** The real path of the run's workspace folder (its root run's), made when missing. */
  workspaceRoot(run: RunState): Promise<string>;
  /**
   * Writes a node's output file in the run's workspace (policy, size limit, quota: `write_file`'s
   * path) and tells the listeners now, without a cursor; answers its workspace path and what they recorded.
   */
  writeOutput(run: RunState, nodeId: string, node: string, relPath: string, bytes: Buffer, contentType: string): Promise<{ file_path: string; artifact: ProducedArtifact | null }>;
}

/** A file an effect wrote: the agent's file tools anywhere they may write, a plugin's effect node only inside the run's folder. */
export interface WrittenFile {
  realPath: string;
  contentType?: string;
  /** Announced only when it lies inside the run's workspace folder. */
  insideOnly?: boolean;
}

export interface RunToolsDeps {
  workspaces: WorkspaceService;
  /** The file tools' size and time budgets (`workspace.*`). */
  toolLimits: ToolLimits;
  signals: RunSignalSource;
  /** The `runs.hooks` file listeners. */
  fileProduced?: (file: ProducedFile) => Promise<ProducedArtifact | null | void>;
  /** The run folders' usage (shared with export); a new one when absent. */
  usage?: FolderUsage;
  /** Tools other plugins registered (`agentToolsToken`): a call naming one falls through to it. */
  agentTools?: Pick<AgentToolRegistry, 'get'>;
}

export class RunTools implements ToolRunner {
  /** What the run folders hold, for their quota (see folder-quota.ts). */
  private readonly usage: FolderUsage;

  constructor(private readonly deps: RunToolsDeps) {
    this.usage = deps.usage ?? new FolderUsage();
  }

  async runTools(run: RunState, payload: ToolCallsPayload, wrote?: (realPath: string) => void): Promise<Record<string, unknown>> {
    // The root's recorded workspace (a run from before the workspaces plugin gets one resolved now, clamped).
    const ws = await this.workspaceOf(run);
    const { calls, allowed } = toolCallsOf(payload, run.effect_index);
    const step = { workspaces: this.deps.workspaces, ws, account: run.account, usage: this.usage, limits: this.deps.toolLimits, signal: this.deps.signals.signalOf(run.run_id), wrote,
      agentTools: this.deps.agentTools, run: { run_id: run.run_id, root_run_id: run.root_run_id, account: run.account, session_id: run.session_id, vars: run.vars } };
    return runToolStep(step, calls, allowed);
  }

  /** The root's recorded workspace (a run from before the workspaces plugin gets one resolved now, clamped). */
  private workspaceOf(run: RunState) {
    return runWorkspaceOf(this.deps.workspaces, { run_id: run.root_run_id, account: run.account, started_by_admin: run.started_by_admin, session_id: null, input_data: {} });
  }

  async workspaceRoot(run: RunState): Promise<string> {
    return realpath(await this.deps.workspaces.rootOf(await this.workspaceOf(run)));
  }

  async writeOutput(run: RunState, nodeId: string, node: string, relPath: string, bytes: Buffer, contentType: string): Promise<{ file_path: string; artifact: ProducedArtifact | null }> {
    const ws = await this.workspaceOf(run);
    const tools = { workspaces: this.deps.workspaces, ws, account: run.account, usage: this.usage, limits: this.deps.toolLimits, signal: this.deps.signals.signalOf(run.run_id) };
    const { real, where, root } = await writeWorkspaceFile(tools, node, relPath, bytes);
    const within = inside(real, root);
    const rel = within ? path.relative(root, real).split(path.sep).join('/') : where;
    const made = within && this.deps.fileProduced
      ? await this.deps.fileProduced({ account: run.account, run_id: run.run_id, root_run_id: run.root_run_id, session_id: run.session_id, node_id: nodeId, ledger_cursor: null, real_path: real, rel_path: rel, content_type: contentType })
      : null;
    return { file_path: rel, artifact: made || null };
  }

  async announceWritten(run: RunState, nodeId: string | null, cursor: number | null, files: WrittenFile[]): Promise<void> {
    if (!this.deps.fileProduced || !files.length) return;
    // The folder may be gone (removed by hand): the file is then named by its real path.
    const ws = this.deps.workspaces.recorded(run.root_run_id);
    const root = ws ? await this.deps.workspaces.rootOf(ws).then((r) => realpath(r)).catch(() => null) : null;
    // A file written twice in one step is announced once.
    const seen = new Set<string>();
    for (const file of files) {
      const real = path.resolve(file.realPath);
      const within = root !== null && inside(real, root);
      if (seen.has(real) || (file.insideOnly && !within)) continue;
      seen.add(real);
      // Outside the folder: the real path, but never where the data folder is (relative to it there).
      const rel = within ? path.relative(root, real).split(path.sep).join('/') : (this.deps.workspaces.maskedPath?.(real) ?? real);
      await this.deps.fileProduced({ account: run.account, run_id: run.run_id, root_run_id: run.root_run_id, session_id: run.session_id, node_id: nodeId, ledger_cursor: cursor, real_path: real, rel_path: rel, ...(file.contentType ? { content_type: file.contentType } : {}) });
    }
  }
}
