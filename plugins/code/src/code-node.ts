/**
 * The `code` node (runtime-nodes §4): runs the flow's Python in the sandbox pool. An unrecorded
 * effect node, as the origin's plain exec node: no ledger record, performed on every visit; a
 * failure ends the run completed with the failure record and the node (`NodeFailure`).
 */
import { effectNode, NodeFailure, type EffectNodeType, type FlowNode, type NodeInputs } from '@keel/plugin-gateway-runs';
import { codeSourceOf, permissionModeOf } from './code-source.js';
import { SandboxError, type SandboxPool } from './sandbox-pool.js';
import type { CodeMode, ExecutionMetrics } from './worker-protocol.js';

export interface CodePayload extends Record<string, unknown> {
  source: string;
  function_name: string;
  /** `_input`: the node's resolved inputs without `permissions`. */
  input: Record<string, unknown>;
  /** The resolved mode, or why the permissions value is refused. */
  mode: CodeMode | null;
  mode_error: string | null;
}

export interface CodeResult extends Record<string, unknown> {
  /** The function's return value. */
  value: unknown;
  execution: ExecutionMetrics & { permissions: CodeMode };
}

export const FULL_ACCESS_REFUSED =
  "full_access code execution is disabled by host policy. Set the code plugin's allowFullAccess setting only for trusted local deployments.";

/** The failure record the origin ends the run with (the runtime adds `node`). */
function failure(error: string, execution: Record<string, unknown>): NodeFailure {
  return new NodeFailure(error, { success: false, output: null, result: null, error, execution });
}

function payloadOf(inputs: NodeInputs, node: FlowNode): CodePayload {
  const { permissions, ...input } = inputs;
  const chosen = permissions ?? node.data.pinDefaults?.permissions ?? null;
  const mode = permissionModeOf(chosen);
  const { source, functionName } = codeSourceOf(node);
  return { source, function_name: functionName, input, mode: typeof mode === 'string' ? mode : null, mode_error: typeof mode === 'string' ? null : mode.error };
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function codeNode(pool: SandboxPool, allowFullAccess: boolean): EffectNodeType {
  const definition = effectNode<CodePayload, CodeResult>({
    payload: payloadOf,
    perform: async (payload, context) => {
      const idle = { duration_ms: 0, cpu_time_ms: 0, memory_rss_mb: 0, memory_rss_delta_mb: 0, permissions: payload.mode ?? 'sandbox' };
      if (!payload.mode) throw failure(payload.mode_error!, idle);
      if (payload.mode === 'full_access' && !allowFullAccess) throw failure(FULL_ACCESS_REFUSED, idle);
      const task = { source: payload.source, function_name: payload.function_name, input_json: JSON.stringify(payload.input), mode: payload.mode };
      let outcome;
      try {
        outcome = await pool.run(task, context.signal, context.account);
      } catch (err) {
        if (err instanceof SandboxError) throw failure(err.message, idle);
        throw err;
      }
      const execution = { ...outcome.execution, permissions: payload.mode };
      if (!outcome.ok) throw failure(outcome.error ?? 'Runtime error', execution);
      return { value: outcome.value, execution };
    },
    // The origin's success record: a returned object's keys are pins too.
    outputs: ({ value, execution }) => ({ ...(isRecord(value) ? value : {}), success: true, output: value, result: value, execution }),
    // As the last node the run ends with the raw return, not the record.
    lastNodeOutput: ({ value }) => value,
  });
  return { ...definition, recorded: false };
}
