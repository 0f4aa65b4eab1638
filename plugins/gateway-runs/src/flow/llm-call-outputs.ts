/**
 * The `llm_call` node's output pins from its effect's result (reference runtime-nodes §5.1 "Node
 * outputs"): `response` is the compact JSON of `data` when the answer was structured, else the text.
 */
import { isRecord } from './effect-requests.js';
import type { RunVars } from './node-io.js';

export function llmCallOutputs(r: Record<string, unknown>, error: string | null): Record<string, unknown> {
  const data = r.data ?? null;
  const structured = data !== null && typeof data === 'object';
  const toolCalls = Array.isArray(r.tool_calls) ? r.tool_calls : [];
  return {
    // JSON.stringify is the origin's compact form (`,`/`:` separators, non-ASCII kept).
    response: structured ? JSON.stringify(data) : typeof r.content === 'string' ? r.content : '',
    data,
    success: true,
    tool_calls: toolCalls,
    meta: {
      schema: 'abstractflow.llm_call.v1.meta',
      version: 1,
      output_mode: structured ? 'structured' : 'unstructured',
      tool_calls: toolCalls.length,
      provider: r.provider ?? null,
      model: r.model ?? null,
      finish_reason: r.finish_reason ?? null,
      usage: r.usage ?? null,
      gen_time: r.gen_time ?? null,
      ttft_ms: r.ttft_ms ?? null,
    },
    ...(error ? { error } : {}),
  };
}

/** Mistakes of `llm_call` nodes waiting for their result, by node (`vars._temp.llm_errors`). */
export function llmNodeErrors(vars: RunVars): Record<string, string> {
  const temp = (vars._temp ??= { node_outputs: {}, effects: {}, control: [] }) as unknown as Record<string, unknown>;
  if (!isRecord(temp.llm_errors)) temp.llm_errors = {};
  return temp.llm_errors as Record<string, string>;
}

export function takeLlmNodeError(vars: RunVars, nodeId: string): string | null {
  const temp = vars._temp as unknown as Record<string, unknown> | undefined;
  const errors = temp && isRecord(temp.llm_errors) ? (temp.llm_errors as Record<string, string>) : null;
  if (!errors || !(nodeId in errors)) return null;
  const error = errors[nodeId]!;
  delete errors[nodeId];
  return error;
}
