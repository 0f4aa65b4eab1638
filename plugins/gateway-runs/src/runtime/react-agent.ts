/**
 * The agent node's child run (reference §2.6 `agent`): a reasoning loop over LLM calls. Each
 * iteration is a durable `llm_call` effect on node `reason`; an answer without a tool request ends
 * the loop. The loop's conversation lives in the run's memory (`vars.context.messages`). A tool
 * request (`Action: <tool>` then `Action Input: <JSON object>`) naming one of the file tools the
 * node allows (`_runtime.allowed_tools`) becomes a durable `tool_calls` effect on node `act`; its
 * result goes back to the model as the Observation. Any other tool is answered with an observation
 * saying it is not available. The loop goes on until an answer or `max_iterations`.
 */
import type { BuiltinEffect, LlmCallPayload } from '../flow/effect-requests.js';
import { forModel, memoryOf, setMemory, type MemoryMessage } from './conversation-memory.js';
import type { RunState } from './run-state.js';
import type { AgentToolRegistry } from '../extensions/agent-tools.js';
import { isFileTool, TOOL_SPECS, type ToolCall, type ToolResult } from '../workspace/file-tools.js';

type ToolSpec = { name: string; description: string; parameters: Record<string, unknown> };

const SYSTEM = 'You are a helpful agent. Answer the task directly and concisely.';
const TOOL_PATTERN = /^\s*Action:\s*([A-Za-z0-9_.-]+)/m;
const INPUT_PATTERN = /^\s*Action Input:\s*/m;

export type AgentStep = { kind: 'effect'; node: string; effect: BuiltinEffect } | { kind: 'complete'; output: Record<string, unknown> };

interface AgentState {
  iterations: number;
  /** True once the task joined the memory (`vars.context.messages`). */
  seeded?: boolean;
  /** Where runs saved before the memory moved to `vars.context.messages` kept their conversation. */
  messages?: MemoryMessage[];
  /** The tool calls the loop made and their results, in order (the agent node's trace and observations). */
  tool_calls?: ToolCall[];
  tool_results?: ToolResult[];
}

export interface AgentOptions {
  /** Describe the allowed file tools and the request format in the loop's system prompt. */
  toolPrompt?: boolean;
  /** Tools other plugins registered: callable when allowed, and those offered to the run join its allow-list. */
  agentTools?: Pick<AgentToolRegistry, 'get' | 'list' | 'offeredTo'>;
}

export function agentStep(run: RunState, options: AgentOptions = {}): AgentStep {
  const vars = run.vars;
  const context = (vars.context ?? {}) as { task?: string };
  const runtime = (vars._runtime ?? {}) as Record<string, unknown>;
  const limits = (vars._limits ?? {}) as { max_iterations?: number };
  const state = ((vars._agent as AgentState | undefined) ??= { iterations: 0 });
  if (state.messages) {
    setMemory(vars, state.messages);
    delete state.messages;
    state.seeded = true;
  }
  // The loop's conversation is the run's memory, so `compact_memory` on the agent run shortens it.
  if (!state.seeded) {
    // Tools offered to this run (read_skill when skills are active) join its allow-list once, durably.
    const offered = options.agentTools?.offeredTo(vars).map((o) => o.tool.name) ?? [];
    if (offered.length) {
      const own = Array.isArray(runtime.allowed_tools) ? (runtime.allowed_tools as unknown[]).map(String) : [];
      runtime.allowed_tools = [...own, ...offered.filter((n) => !own.includes(n))];
      vars._runtime = runtime;
    }
    setMemory(vars, [...memoryOf(vars), { role: 'user', content: String(context.task ?? '') }]);
    state.seeded = true;
  }
  const temp = ((vars._temp ??= {}) as { effects?: Record<string, unknown> });
  temp.effects ??= {};

  const allowed = Array.isArray(runtime.allowed_tools) ? (runtime.allowed_tools as unknown[]).map(String) : [];
  const registered: ToolSpec[] = (options.agentTools?.list() ?? []).map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
  const tools: ToolSpec[] = [...TOOL_SPECS, ...registered].filter((t) => allowed.includes(t.name));
  // What an allowed offered tool tells the model (the skills index for read_skill).
  const notes = (options.agentTools?.offeredTo(vars) ?? []).filter((o) => allowed.includes(o.tool.name)).map((o) => o.note);

  if ('act' in temp.effects) {
    const result = temp.effects.act as { results?: ToolResult[] };
    delete temp.effects.act;
    state.tool_results = [...(state.tool_results ?? []), ...(result.results ?? [])];
    setMemory(vars, [...memoryOf(vars), { role: 'user', content: observation(result.results ?? []) }]);
  } else if ('reason' in temp.effects) {
    const result = temp.effects.reason as { content?: string; model?: string; provider?: string };
    delete temp.effects.reason;
    state.iterations++;
    const content = String(result.content ?? '');
    setMemory(vars, [...memoryOf(vars), { role: 'assistant', content }]);
    const tool = TOOL_PATTERN.exec(content);
    const max = limits.max_iterations ?? 50;
    if (!tool || state.iterations >= max) {
      return { kind: 'complete', output: { answer: content, iterations: state.iterations, messages: memoryOf(vars), success: true, task: context.task ?? '', model: result.model ?? null, provider: result.provider ?? null, tool_calls: state.tool_calls ?? [], tool_results: state.tool_results ?? [] } };
    }
    const name = tool[1]!;
    if ((isFileTool(name) || options.agentTools?.get(name)) && allowed.includes(name)) {
      const call: ToolCall = { name, arguments: toolArguments(content.slice(tool.index + tool[0].length)), call_id: `call_${state.iterations}_1` };
      state.tool_calls = [...(state.tool_calls ?? []), call];
      return { kind: 'effect', node: 'act', effect: { type: 'tool_calls', payload: { tool_calls: [call], allowed_tools: tools.map((t) => t.name) } } };
    }
    setMemory(vars, [...memoryOf(vars), { role: 'user', content: `Observation: the tool '${name}' is not available on this gateway. Answer without it.` }]);
  }
  const system = [SYSTEM, options.toolPrompt && tools.length ? toolInstructions(tools) : null, ...notes, runtime.system_prompt_extra].filter(Boolean).join('\n\n');
  // `_runtime` comes from the node's payload and the parent's start: read as the call's typed parameters here.
  const params: LlmCallPayload['params'] = { temperature: Number(runtime.temperature ?? 0.7) };
  if (runtime.seed !== undefined) params.seed = Number(runtime.seed);
  return {
    kind: 'effect',
    node: 'reason',
    effect: {
      type: 'llm_call',
      payload: { type: 'llm_call', provider: String(runtime.provider ?? ''), model: String(runtime.model ?? ''), messages: [{ role: 'system', content: system }, ...forModel(memoryOf(vars))], params, include_context: true, tools },
    },
  };
}

function toolInstructions(tools: ToolSpec[]): string {
  const lines = tools.map((t) => `- ${t.name}: ${t.description} Arguments: ${JSON.stringify(t.parameters.properties)}`);
  return [
    'You may use these tools on files (relative paths are inside your workspace folder):',
    ...lines,
    'To use a tool, end your answer with two lines:',
    'Action: <tool name>',
    'Action Input: <the arguments as one JSON object>',
    'The result comes back as an Observation. When you have the answer, reply without an Action line.',
  ].join('\n');
}

/** The JSON object after `Action Input:` (code fences and trailing text tolerated); `{}` when there is none. */
export function toolArguments(rest: string): Record<string, unknown> {
  const input = INPUT_PATTERN.exec(rest);
  if (!input) return {};
  const text = rest.slice(input.index + input[0].length);
  const open = text.indexOf('{');
  if (open < 0) return {};
  // The longest balanced-looking candidate that parses: try each closing brace from the last one back.
  for (let close = text.lastIndexOf('}'); close > open; close = text.lastIndexOf('}', close - 1)) {
    try {
      const value = JSON.parse(text.slice(open, close + 1)) as unknown;
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // Try a shorter candidate.
    }
  }
  return {};
}

/** What the model reads after a tool ran. */
function observation(results: ToolResult[]): string {
  return results
    .map((r) => (r.success ? `Observation (${r.name}): ${r.output ?? ''}` : `Observation (${r.name}): the tool failed: ${r.error ?? 'unknown error'}`))
    .join('\n\n');
}
