/**
 * The memory pins of `llm_call` (reference runtime-nodes §5.3 "Memory pins"): before the call the
 * node re-enters itself to run up to three effects of the memory plugin, each with its own ledger
 * records — `memory_query` (span recall), `memory_rehydrate` of the first match into the run's
 * context, `memory_kg_query` — and the KG's `active_memory_text` goes into the call as a system message.
 */
import { coerceBool } from './coerce.js';
import { isRecord, type ContributedEffect } from './effect-requests.js';
import type { RunVars } from './node-io.js';
import type { NodeTypes } from './node-types.js';
import type { FlowNode } from './visualflow.js';

type Inputs = Record<string, unknown>;
type Step = 'span_query' | 'span_rehydrate' | 'kg_query';

interface Sources {
  span: boolean;
  kg: boolean;
  query: string;
  scope: string;
  settings: Record<string, unknown>;
}

interface State {
  pending: Step | null;
  span_query?: Record<string, unknown>;
  span_rehydrate?: Record<string, unknown> | null;
  kg_query?: Record<string, unknown>;
}

const present = (v: unknown) => v !== null && v !== undefined && v !== '';

/** What the node's memory pins (or its `memory` object) ask for; null when no memory is used. */
function sourcesOf(inputs: Inputs): Sources | null {
  const memory = isRecord(inputs.memory) ? inputs.memory : {};
  const pick = (key: string) => (present(inputs[key]) ? inputs[key] : memory[key]);
  const span = coerceBool(pick('use_span_memory'));
  const kg = coerceBool(pick('use_kg_memory'));
  if (!span && !kg) return null;
  const settings: Record<string, unknown> = {};
  for (const key of ['recall_level', 'max_span_messages', 'kg_max_input_tokens', 'kg_limit', 'kg_min_score']) if (present(pick(key))) settings[key] = pick(key);
  return { span, kg, query: String(pick('memory_query') ?? inputs.prompt ?? ''), scope: String(pick('memory_scope') ?? 'run'), settings };
}

/** Whether the node's call asks for the session attachments index (`use_session_attachments`). */
export function usesSessionAttachments(inputs: Inputs): boolean {
  const memory = isRecord(inputs.memory) ? inputs.memory : {};
  return coerceBool(present(inputs.use_session_attachments) ? inputs.use_session_attachments : memory.use_session_attachments);
}

function states(vars: RunVars): Record<string, State> {
  const temp = (vars._temp ??= { node_outputs: {}, effects: {}, control: [] }) as unknown as Record<string, unknown>;
  if (!isRecord(temp.memory_sources)) temp.memory_sources = {};
  return temp.memory_sources as Record<string, State>;
}

/** The next memory effect the node runs before its call, or null when the call itself is next. */
export function nextMemoryEffect(node: FlowNode, inputs: Inputs, vars: RunVars, nodeTypes: NodeTypes): ContributedEffect | null {
  const sources = sourcesOf(inputs);
  if (!sources) return null;
  const all = states(vars);
  const state = (all[node.id] ??= { pending: null });
  const level = sources.settings.recall_level;
  if (sources.span && !state.span_query) {
    return request(node, state, 'span_query', 'memory_query', nodeTypes, { query: sources.query, scope: sources.scope, ...(present(level) ? { recall_level: level } : {}) }, { return: 'meta' });
  }
  if (sources.span && state.span_rehydrate === undefined) {
    const first = firstSpanId(state.span_query);
    if (first) {
      const max = sources.settings.max_span_messages ?? (present(level) ? undefined : 80);
      return request(node, state, 'span_rehydrate', 'memory_rehydrate', nodeTypes, { span_ids: [first], placement: 'after_summary', ...(max !== undefined ? { max_messages: max } : {}), ...(present(level) ? { recall_level: level } : {}) });
    }
    state.span_rehydrate = null;
  }
  if (sources.kg && !state.kg_query) {
    const budget = sources.settings.kg_max_input_tokens ?? (present(level) ? undefined : 1200);
    return request(node, state, 'kg_query', 'memory_kg_query', nodeTypes, {
      query_text: sources.query,
      scope: sources.scope,
      ...(budget !== undefined ? { max_input_tokens: budget } : {}),
      ...(present(sources.settings.kg_limit) ? { limit: sources.settings.kg_limit } : {}),
      ...(present(sources.settings.kg_min_score) ? { min_score: sources.settings.kg_min_score } : {}),
      ...(present(level) ? { recall_level: level } : {}),
    });
  }
  return null;
}

function request(node: FlowNode, state: State, step: Step, type: string, nodeTypes: NodeTypes, pins: Inputs, overrides: Inputs = {}): ContributedEffect {
  const definition = nodeTypes.effect(type);
  if (!definition) throw new Error(`node '${node.id}' reads memory (its memory pins need '${type}'), which the 'memory' plugin provides; that plugin is not loaded (add it to the config's plugins).`);
  state.pending = step;
  return { type, payload: { ...definition.payload(pins, node), ...overrides }, contributed: true };
}

/** A memory effect's result landed on the node: kept (a rehydrate placed into the run's context). False when it was the call's own result. */
export function memoryResultLanded(node: FlowNode, vars: RunVars, result: unknown, nodeTypes: NodeTypes): boolean {
  const state = states(vars)[node.id];
  if (!state?.pending) return false;
  const r = isRecord(result) ? result : {};
  state[state.pending] = r;
  if (state.pending === 'span_rehydrate') nodeTypes.effect('memory_rehydrate')?.applyToRun?.(r, { vars, nodeId: node.id });
  state.pending = null;
  return true;
}

/** The KG's active memory text for the node's call (empty when none). */
export function kgMemoryText(vars: RunVars, nodeId: string): string {
  const text = states(vars)[nodeId]?.kg_query?.active_memory_text;
  return typeof text === 'string' ? text.trim() : '';
}

/** The call's result landed: the node's memory state goes. */
export function forgetMemorySources(vars: RunVars, nodeId: string): void {
  const temp = vars._temp as unknown as Record<string, unknown> | undefined;
  if (temp && isRecord(temp.memory_sources)) delete (temp.memory_sources as Record<string, State>)[nodeId];
}

function firstSpanId(result: Record<string, unknown> | undefined): string | null {
  const results = Array.isArray(result?.results) ? result.results : [];
  const meta = isRecord(results[0]) && isRecord(results[0].meta) ? results[0].meta : {};
  const ids = Array.isArray(meta.span_ids) ? meta.span_ids : [];
  return typeof ids[0] === 'string' ? ids[0] : null;
}
