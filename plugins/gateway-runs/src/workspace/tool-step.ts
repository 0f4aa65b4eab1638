/**
 * One `tool_calls` step: its calls in order, in the run's folder, under the step's budgets. The
 * step stops and fails (with the reason recorded on its ledger record) when it runs longer than
 * `stepTimeoutMs` or its results grow past `maxResultBytes`; a cancel of the run stops it too.
 */
import { formatBytes } from '@keel/plugin-sdk';
import { isRecord, type ToolCallsPayload } from '../flow/effect-requests.js';
import { executeToolCall, type ToolCall, type ToolContext, type ToolResult } from './file-tools.js';
import { ToolBudgetError, type ToolLimits } from './tool-limits.js';
import type { RunWorkspace, WorkspaceService } from '@keel/plugin-workspaces';
import type { FolderUsage } from './folder-quota.js';
import type { AgentToolRegistry, AgentToolRun } from '../extensions/agent-tools.js';

export interface ToolStep {
  workspaces: WorkspaceService;
  /** The root run's recorded workspace. */
  ws: RunWorkspace;
  /** The run's owner: its own gateway-made folders are open to it. */
  account: string;
  usage: FolderUsage;
  limits: ToolLimits;
  /** The run's cancel signal. */
  signal: AbortSignal;
  /** Told each file the step's calls wrote. */
  wrote?: (realPath: string) => void;
  /** Tools other plugins registered, and the run they are called for. */
  agentTools?: Pick<AgentToolRegistry, 'get'>;
  run?: AgentToolRun;
}

/** The calls and allowed tools of a TOOL_CALLS effect's payload; a call without an id gets `call_<effectIndex>_<n>`. */
export function toolCallsOf(payload: ToolCallsPayload, effectIndex: number): { calls: ToolCall[]; allowed: string[] | null } {
  const calls: ToolCall[] = payload.tool_calls.map((call, i) => {
    const c = isRecord(call) ? call : {};
    return {
      name: String(c.name ?? ''),
      arguments: isRecord(c.arguments) ? c.arguments : {},
      call_id: typeof c.call_id === 'string' && c.call_id ? c.call_id : `call_${effectIndex}_${i + 1}`,
    };
  });
  return { calls, allowed: payload.allowed_tools ?? null };
}

export async function runToolStep(step: ToolStep, calls: ToolCall[], allowed: string[] | null): Promise<{ mode: 'executed'; results: ToolResult[] }> {
  const { limits } = step;
  const budget = new AbortController();
  const overTime = new ToolBudgetError(`The tool calls took longer than ${limits.stepTimeoutMs} ms, the budget of one tool_calls step (gateway-runs setting workspace.stepTimeoutMs); they were stopped.`);
  const timer = setTimeout(() => budget.abort(overTime), limits.stepTimeoutMs);
  const signal = AbortSignal.any([budget.signal, step.signal]);
  const stopped = new Promise<never>((_, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('Cancelled'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  stopped.catch(() => undefined);
  const ctx: ToolContext = { workspaces: step.workspaces, ws: step.ws, account: step.account, usage: step.usage, limits, signal, wrote: step.wrote, agentTools: step.agentTools, run: step.run };
  const results: ToolResult[] = [];
  let bytes = 0;
  try {
    for (const call of calls) {
      // A call stuck in the system (a hung disk) cannot be interrupted; the step stops waiting for it.
      const result = await Promise.race([executeToolCall(ctx, call, allowed), stopped]);
      bytes += Buffer.byteLength(JSON.stringify(result));
      if (bytes > limits.maxResultBytes) {
        throw new ToolBudgetError(`The results of the tool calls reached ${formatBytes(bytes)} at call ${call.call_id}, over the ${formatBytes(limits.maxResultBytes)} of one tool_calls step (gateway-runs setting workspace.maxResultBytes); they were stopped.`);
      }
      results.push(result);
    }
  } finally {
    clearTimeout(timer);
  }
  return { mode: 'executed', results };
}
