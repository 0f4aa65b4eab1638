/**
 * `memact_compose` (reference runtime-nodes §8.8): folds KG results into the run's MemAct Active
 * Memory (`vars._runtime.active_memory`): CURRENT CONTEXT entries starting with the marker are
 * replaced by one line per packet, and the memory is rendered as blocks and a system prompt. A plain
 * exec node in the origin: no ledger records (`recorded: false`); the new memory is written to the
 * run from the node's result.
 */
import { randomBytes } from 'node:crypto';
import { effectNode } from '@keel/plugin-gateway-runs';
import { given, textOf } from '../memory-deps.js';
import { packetOf, type Packet } from '../kg-packets.js';
import type { Triple } from '../kg-store.js';
import { statementOf } from '../kg-terms.js';
import { isoNow } from '../python-text.js';
import { intOf } from '../recall-levels.js';


const NOT_A_DICT = 'memact_compose requires a dict kg_result (connect memory_kg_query.raw or output)';
const LISTS = ['relationships', 'current_tasks', 'current_context', 'critical_insights', 'references', 'history'] as const;
type ListName = (typeof LISTS)[number];
const LIMITS: Record<ListName, number> = { relationships: 40, current_tasks: 8, current_context: 60, critical_insights: 60, references: 80, history: 200 };
const TITLES: Array<[string, string, ListName | 'persona' | null]> = [
  ['memory_blueprints', 'MEMORY BLUEPRINTS', null],
  ['persona', 'MY PERSONA', 'persona'],
  ['relationships', 'RELATIONSHIPS', 'relationships'],
  ['current_tasks', 'CURRENT TASKS', 'current_tasks'],
  ['current_context', 'CURRENT CONTEXT', 'current_context'],
  ['critical_insights', 'CRITICAL INSIGHTS', 'critical_insights'],
  ['references', 'REFERENCES', 'references'],
  ['history', 'HISTORY', 'history'],
];
/** Keel's wording of the blueprint block (the origin's exact text is not in the reference). */
const BLUEPRINTS = [
  'This is your active memory. Each block below is one part of it:',
  '- MY PERSONA: who you are and how you act.',
  '- RELATIONSHIPS: the people and agents you know and how you relate to them.',
  '- CURRENT TASKS: what you are working on now.',
  '- CURRENT CONTEXT: facts that matter for the current exchange (KG: lines come from the knowledge graph).',
  '- CRITICAL INSIGHTS: lessons you must not forget.',
  '- REFERENCES: where to find more.',
  '- HISTORY: what happened before, newest last.',
].join('\n');

interface MemoryRecord {
  id: string;
  text: string;
  ts: string;
  created_at: string;
}
type ActiveMemory = { version: 1; persona: string; limits: Record<ListName, number>; created_at: string; updated_at: string } & Record<ListName, MemoryRecord[]>;

function failure() {
  return { ok: false, error: NOT_A_DICT, delta: {}, trace: {}, active_memory: {}, memact_system_prompt: '', memact_blocks: [] };
}

/** `YY/MM/DD HH:MM:SS` (UTC). */
function shortTs(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(date.getUTCFullYear() % 100)}/${p(date.getUTCMonth() + 1)}/${p(date.getUTCDate())} ${p(date.getUTCHours())}:${p(date.getUTCMinutes())}:${p(date.getUTCSeconds())}`;
}

function emptyMemory(now: string): ActiveMemory {
  return { version: 1, persona: '', relationships: [], current_tasks: [], current_context: [], critical_insights: [], references: [], history: [], limits: { ...LIMITS }, created_at: now, updated_at: now };
}

function memoryFrom(value: unknown, now: string): ActiveMemory {
  const base = emptyMemory(now);
  if (!value || typeof value !== 'object') return base;
  const v = value as Record<string, unknown>;
  const memory: ActiveMemory = { ...base, persona: textOf(v.persona), created_at: textOf(v.created_at) || now };
  for (const name of LISTS) memory[name] = Array.isArray(v[name]) ? (v[name] as MemoryRecord[]).filter((r) => r && typeof r === 'object' && typeof r.text === 'string') : [];
  return memory;
}

function lineOf(p: Packet, marker: string): string {
  const notes = [p.span_id ? `span:${p.span_id}` : null, p.writer_workflow_id ? `wf:${p.writer_workflow_id}` : null].filter(Boolean);
  return `${marker} ${p.statement}${notes.length ? ` (${notes.join('; ')})` : ''}`;
}

export function compose(inputs: Record<string, unknown>, activeMemory: unknown) {
  const kg = [inputs.kg_result, inputs.raw, inputs.result].find(given);
  if (!kg || typeof kg !== 'object' || Array.isArray(kg)) return failure();
  const result = kg as Record<string, unknown>;
  const marker = textOf(inputs.marker).trim() || 'KG:';
  const maxItems = intOf(inputs.max_items);
  let packets: Packet[] = Array.isArray(result.packets)
    ? (result.packets as Packet[]).filter((p) => p && typeof p === 'object')
    : Array.isArray(result.items) ? (result.items as Triple[]).filter((t) => t && typeof t === 'object').map((t) => packetOf({ ...t, provenance: t.provenance ?? {}, attributes: t.attributes ?? {} })) : [];
  if (maxItems !== null && maxItems >= 0) packets = packets.slice(0, maxItems);

  const date = new Date();
  const now = isoNow(date);
  const memory = memoryFrom(activeMemory, now);
  const lower = marker.toLowerCase();
  const removed = memory.current_context.filter((r) => r.text.trim().toLowerCase().startsWith(lower));
  const kept = memory.current_context.filter((r) => !r.text.trim().toLowerCase().startsWith(lower));
  const seen = new Set(kept.map((r) => r.text.toLowerCase()));
  const added: MemoryRecord[] = [];
  for (const p of packets) {
    const text = lineOf({ ...p, statement: p.statement ?? statementOf(p) }, marker);
    if (seen.has(text.toLowerCase())) continue;
    seen.add(text.toLowerCase());
    added.push({ id: `ctx_${randomBytes(6).toString('hex')}`, text, ts: shortTs(date), created_at: now });
  }
  memory.current_context = [...added, ...kept].slice(0, LIMITS.current_context);
  memory.updated_at = now;

  const blocks = TITLES.map(([id, title, field]) => {
    let content: string;
    if (field === null) content = BLUEPRINTS;
    else if (field === 'persona') content = memory.persona || '(empty)';
    else content = memory[field].length ? memory[field].map((r) => `- [${r.ts}] ${r.text}`).join('\n') : '(empty)';
    return { component_id: id, title, content };
  });
  return {
    ok: true,
    delta: { current_context: { added: added.map((r) => r.text), removed: removed.map((r) => r.text) } },
    trace: { marker, stimulus: given(inputs.stimulus) ? textOf(inputs.stimulus) : null, packets: packets.length, added: added.length, removed: removed.length },
    active_memory: memory,
    memact_blocks: blocks,
    memact_system_prompt: blocks.map((b) => `## ${b.title}\n${b.content}`).join('\n\n'),
  };
}

export function memactComposeNode() {
  return {
    ...effectNode<Record<string, unknown>, Record<string, unknown>>({
    // Writes and reads Keel's own storage only: no commit is needed before it (effect-durability.ts).
    sideEffects: 'local',
      // The inputs themselves: the node has no record, nothing of it is stored.
      payload: (inputs) => ({ kg_result: inputs.kg_result ?? null, raw: inputs.raw ?? null, result: inputs.result ?? null, stimulus: inputs.stimulus ?? inputs.query_text ?? null, marker: inputs.marker ?? null, max_items: inputs.max_items ?? null }),
      perform: async (payload, context) => compose(payload, (context.vars._runtime as Record<string, unknown> | undefined)?.active_memory),
      applyToRun: (result, run) => {
        if (result.ok !== true) return;
        const runtime = (run.vars._runtime && typeof run.vars._runtime === 'object' ? run.vars._runtime : (run.vars._runtime = {})) as Record<string, unknown>;
        runtime.active_memory = result.active_memory;
      },
    }),
    recorded: false,
  };
}
