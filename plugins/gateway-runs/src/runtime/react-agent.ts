/**
 * The agent node's child run (reference §2.6 `agent`): a reasoning loop over LLM calls. Each
 * iteration is a durable `llm_call` effect on node `reason`; an answer without a tool request ends
 * the loop. The loop's conversation lives in the run's memory (`vars.context.messages`). Keel
 * does not run tools yet, so a requested tool is answered with an observation saying so, and the
 * loop goes on until an answer or `max_iterations`.
 */
import type { EffectRequest } from '../flow/interpreter.js';
import { forModel, memoryOf, setMemory, type MemoryMessage } from './conversation-memory.js';
import type { RunState } from './run-state.js';

const SYSTEM = 'You are a helpful agent. Answer the task directly and concisely.';
const TOOL_PATTERN = /^\s*Action:\s*([A-Za-z0-9_.-]+)/m;

export type AgentStep = { kind: 'effect'; node: string; effect: EffectRequest } | { kind: 'complete'; output: Record<string, unknown> };

interface AgentState {
  iterations: number;
  /** True once the task joined the memory (`vars.context.messages`). */
  seeded?: boolean;
  /** Where runs saved before the memory moved to `vars.context.messages` kept their conversation. */
  messages?: MemoryMessage[];
}

export function agentStep(run: RunState): AgentStep {
  const vars = run.vars as Record<string, unknown>;
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
    setMemory(vars, [...memoryOf(vars), { role: 'user', content: String(context.task ?? '') }]);
    state.seeded = true;
  }
  const temp = ((vars._temp ??= {}) as { effects?: Record<string, unknown> });
  temp.effects ??= {};

  if ('reason' in temp.effects) {
    const result = temp.effects.reason as { content?: string; model?: string; provider?: string };
    delete temp.effects.reason;
    state.iterations++;
    const content = String(result.content ?? '');
    setMemory(vars, [...memoryOf(vars), { role: 'assistant', content }]);
    const tool = TOOL_PATTERN.exec(content);
    const max = limits.max_iterations ?? 50;
    if (!tool || state.iterations >= max) {
      return { kind: 'complete', output: { answer: content, iterations: state.iterations, messages: memoryOf(vars), success: true, task: context.task ?? '', model: result.model ?? null, provider: result.provider ?? null } };
    }
    setMemory(vars, [...memoryOf(vars), { role: 'user', content: `Observation: the tool '${tool[1]}' is not available on this gateway. Answer without it.` }]);
  }
  const system = [SYSTEM, runtime.system_prompt_extra].filter(Boolean).join('\n\n');
  const params: Record<string, unknown> = { temperature: runtime.temperature ?? 0.7 };
  if (runtime.seed !== undefined) params.seed = runtime.seed;
  return {
    kind: 'effect',
    node: 'reason',
    effect: {
      type: 'llm_call',
      payload: { type: 'llm_call', provider: runtime.provider ?? '', model: runtime.model ?? '', messages: [{ role: 'system', content: system }, ...forModel(memoryOf(vars))], params, include_context: true, tools: [] },
    },
  };
}
