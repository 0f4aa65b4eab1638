/**
 * KG packets and the active-memory text (reference runtime-nodes §8.7, the origin's
 * `memory/kg_packets.py`): one packet per triple, then `## KG ACTIVE MEMORY` lines until the next
 * line would exceed the token budget (estimated as characters / 4).
 */
import type { Triple } from './kg-store.js';
import { statementOf } from './kg-terms.js';

export interface Packet {
  version: 0;
  statement: string;
  subject: string;
  predicate: string;
  object: string;
  observed_at?: string;
  scope?: string;
  owner_id?: string;
  span_id?: string;
  writer_run_id?: string;
  writer_workflow_id?: string;
  retrieval_score?: number;
}

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function packetOf(t: Triple): Packet {
  const provenance = t.provenance ?? {};
  const score = (t.attributes?._retrieval as { score?: number } | undefined)?.score;
  const packet: Packet = { version: 0, statement: statementOf(t), subject: t.subject, predicate: t.predicate, object: t.object };
  if (t.observed_at) packet.observed_at = t.observed_at;
  if (t.scope) packet.scope = t.scope;
  if (t.owner_id) packet.owner_id = t.owner_id;
  if (typeof provenance.span_id === 'string') packet.span_id = provenance.span_id;
  if (typeof provenance.writer_run_id === 'string') packet.writer_run_id = provenance.writer_run_id;
  if (typeof provenance.writer_workflow_id === 'string') packet.writer_workflow_id = provenance.writer_workflow_id;
  if (typeof score === 'number') packet.retrieval_score = score;
  return packet;
}

export function packLines(packets: Packet[], scope: string, semantic: boolean, budget: number) {
  const header = ['## KG ACTIVE MEMORY', `(scope=${scope}; order=${semantic ? 'similarity-desc' : 'observed_at-desc'}; budget=${budget} max_input_tokens)`, ''];
  const lines = [...header];
  let packed = 0;
  for (const p of packets) {
    const notes = [p.span_id ? `span:${p.span_id}` : null, semantic && p.retrieval_score !== undefined ? `score:${p.retrieval_score.toFixed(3)}` : null].filter(Boolean);
    const line = `- [${p.observed_at ?? ''}] ${p.statement}${notes.length ? ` (${notes.join('; ')})` : ''}`;
    if (estimateTokens([...lines, line].join('\n')) > budget) break;
    lines.push(line);
    packed++;
  }
  const text = packed ? lines.join('\n') : '';
  return { active_memory_text: text, packed_count: packed, dropped: packets.length - packed, estimated_tokens: estimateTokens(text) };
}
