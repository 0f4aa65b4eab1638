/**
 * The `call_tool` node (reference runtime-nodes §9.1): one tool call, performed as a `tool_calls`
 * effect (the ledger says `tool_calls`), its first result on the `result` and `success` pins.
 */
import { isRecord, type BuiltinEffect } from './effect-requests.js';

type Inputs = Record<string, unknown>;

/** `{tool_calls: [<the call>] (none when the input is missing or unreadable), allowed_tools?}`; an `allowed_tools` pin that is present, even empty, limits the call. */
export function callToolRequest(inputs: Inputs, config: Record<string, unknown>): BuiltinEffect {
  let call = inputs.tool_call ?? inputs.toolCall;
  if (typeof call === 'string') {
    try {
      call = JSON.parse(call) as unknown;
    } catch {
      call = null;
    }
  }
  const configured = config.allowed_tools ?? config.allowedTools;
  const allowed = 'allowed_tools' in inputs && inputs.allowed_tools !== null && inputs.allowed_tools !== undefined ? inputs.allowed_tools : configured;
  return {
    type: 'tool_calls',
    payload: {
      tool_calls: isRecord(call) ? [call] : [],
      ...(Array.isArray(allowed) ? { allowed_tools: allowed.map(String) } : {}),
    },
  };
}

/** `result` = the first result's output (or its error), `success`; a call not executed says its mode. */
export function callToolOutputs(r: Record<string, unknown>): Record<string, unknown> {
  const mode = r.mode ?? 'executed';
  if (mode !== 'executed') return { result: `Tool execution not completed (mode=${String(mode)})`, success: false, raw: r };
  const first = Array.isArray(r.results) ? (r.results[0] as Record<string, unknown> | undefined) : undefined;
  if (!first) return { result: 'Missing tool result', success: false, raw: r };
  if (first.success === true) return { result: first.output ?? null, success: true, raw: r };
  return { result: first.error ?? 'Tool execution failed', success: false, raw: r };
}
