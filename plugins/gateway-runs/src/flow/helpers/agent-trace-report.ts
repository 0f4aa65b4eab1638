/**
 * `agent_trace_report` (reference runtime-nodes §3.9): an agent's scratchpad (its ReAct child's node
 * traces) as the origin's Markdown report, byte for byte. Nothing is truncated.
 */
import { pythonJsonDumps, pythonStr } from '../python-text.js';
import { isRecord, type Helpers } from './helper.js';

const TITLE = '# Agent Trace Report';
const asRecord = (v: unknown): Record<string, unknown> | null => (isRecord(v) ? v : null);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** A fenced block: JSON (2-space indent, keys as given, non-ASCII kept) or text (`str()`). */
function fence(value: unknown, language: 'json' | 'text' | 'markdown'): string {
  const text = language === 'json' ? pythonJsonDumps(value, { indent: 2, ensureAscii: false }) : value === null || value === undefined ? '' : pythonStr(value);
  return `\`\`\`${language}\n${text}\n\`\`\``;
}

interface Step {
  ts: string;
  nodeId: string;
  entry: Record<string, unknown>;
}

/** Every step of every node trace, oldest first (ISO timestamps sort as text; equal ones keep their order). */
function timeline(nodeTraces: Record<string, unknown>): Step[] {
  const steps: Step[] = [];
  for (const [nodeId, trace] of Object.entries(nodeTraces)) {
    const entries = asRecord(trace)?.steps;
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) {
      if (!isRecord(entry) || Object.keys(entry).length === 0) continue;
      steps.push({ ts: typeof entry.ts === 'string' ? entry.ts : '', nodeId, entry });
    }
  }
  return steps.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
}

function toolCall(call: Record<string, unknown>, result: Record<string, unknown> | undefined): string {
  const callId = call.call_id || call.id || '';
  const lines = [`#### Tool: \`${pythonStr(call.name ?? null)}\`${nonEmpty(callId) ? ` (call_id=${callId})` : ''}`, '', '**Arguments**', fence(call.arguments === undefined ? {} : call.arguments, 'json')];
  if (!result) return [...lines, '', '**Result**', '_missing tool result in trace entry_'].join('\n');
  lines.push('', '**Result**');
  if (typeof result.success === 'boolean') lines.push(`- **success**: ${result.success}`);
  if (result.error !== null && result.error !== undefined) lines.push(`- **error**: ${pythonStr(result.error)}`);
  const output = result.output ?? null;
  lines.push(typeof output === 'string' ? fence(output, 'text') : fence(output, 'json'));
  return lines.join('\n');
}

function llmCallLines(result: Record<string, unknown> | null): string[] {
  const lines: string[] = [];
  if (nonEmpty(result?.model)) lines.push(`- **model**: \`${result.model}\``);
  if (nonEmpty(result?.finish_reason)) lines.push(`- **finish_reason**: \`${result.finish_reason}\``);
  const requested = result?.tool_calls;
  if (Array.isArray(requested) && requested.length > 0) {
    lines.push('- **tool_calls_requested**:');
    for (const call of requested) {
      if (!isRecord(call) || !nonEmpty(call.name)) continue;
      const callId = call.call_id || '';
      lines.push(`  - \`${call.name}\`${nonEmpty(callId) ? ` (call_id=${callId})` : ''}`);
    }
  } else {
    lines.push('- **tool_calls_requested**: none');
  }
  if (typeof result?.content === 'string' && result.content.trim()) lines.push('', '**Assistant content**', fence(result.content, 'markdown'));
  lines.push('');
  return lines;
}

function toolCallsLines(effect: Record<string, unknown>, result: Record<string, unknown> | null): string[] {
  const calls = asRecord(effect.payload)?.tool_calls;
  if (isRecord(calls) && '$artifact' in calls) {
    return [`- **tool_calls**: _offloaded to artifact \`${pythonStr(calls.$artifact ?? null)}\` (trace entry exceeded the inline cap; the ledger STARTED record holds the full calls)_`, ''];
  }
  const list = Array.isArray(calls) ? calls : calls === null || calls === undefined ? [] : [calls];
  if (list.length === 0) return ['- **tool_calls**: none', ''];
  const byId = new Map<string, Record<string, unknown>>();
  for (const r of Array.isArray(result?.results) ? result.results : []) if (isRecord(r) && nonEmpty(r.call_id)) byId.set(r.call_id, r);
  const lines = [''];
  for (const call of list) {
    if (!isRecord(call) || Object.keys(call).length === 0 || '$artifact' in call) continue;
    lines.push(toolCall(call, nonEmpty(call.call_id) ? byId.get(call.call_id) : undefined), '');
  }
  return lines;
}

/** The Markdown report of `scratchpad`. */
export function renderAgentTraceReport(scratchpad: unknown): string {
  if (!isRecord(scratchpad)) return `${TITLE}\n\n_No scratchpad provided._\n`;
  let nodeTraces = scratchpad.node_traces;
  if (!isRecord(nodeTraces)) {
    // A single node trace given directly.
    if (!('steps' in scratchpad && 'node_id' in scratchpad)) return `${TITLE}\n\n_No node_traces found in scratchpad._\n`;
    nodeTraces = { [pythonStr(scratchpad.node_id ?? null)]: scratchpad };
  }
  const header = [TITLE];
  if (nonEmpty(scratchpad.sub_run_id)) header.push(`- **sub_run_id**: \`${scratchpad.sub_run_id}\``);
  if (nonEmpty(scratchpad.workflow_id)) header.push(`- **workflow_id**: \`${scratchpad.workflow_id}\``);
  header.push('');
  const steps = timeline(nodeTraces as Record<string, unknown>);
  if (steps.length === 0) return [...header, '_No trace steps found._', ''].join('\n');
  const lines = [...header, '## Timeline', ''];
  steps.forEach(({ nodeId, entry }, index) => {
    const status = typeof entry.status === 'string' ? entry.status : '';
    const effect = asRecord(entry.effect) ?? {};
    const type = typeof effect.type === 'string' ? effect.type : '';
    lines.push(`### ${index + 1}. \`${nodeId}\` — \`${type}\` (${status})`);
    if (typeof entry.duration_ms === 'number' && entry.duration_ms >= 0) lines.push(`- **duration_ms**: ${entry.duration_ms.toFixed(3)}`);
    if (status === 'failed') {
      if (entry.error !== null && entry.error !== undefined) lines.push('', '**Error**', fence(entry.error, 'text'));
      lines.push('');
      return;
    }
    const result = asRecord(entry.result);
    if (type === 'llm_call') lines.push(...llmCallLines(result));
    else if (type === 'tool_calls') lines.push(...toolCallsLines(effect, result));
    else if (result) lines.push('', '**Result (raw)**', fence(result, 'json'), '');
  });
  return `${lines.join('\n').trimEnd()}\n`;
}

export const traceReportHelpers: Helpers = {
  agent_trace_report: (i) => renderAgentTraceReport(i.scratchpad),
};
