/** What the memory node types share: the stores, the settings, the inference plugin (when loaded). */
import type { EffectContext } from '@keel/plugin-gateway-runs';
import type { InferenceService } from '@keel/plugin-inference';
import type { Embedder } from './embedder.js';
import type { KgStore } from './kg-store.js';
import type { MemoryConfig } from './memory-config.js';
import type { ScopeRun } from './scopes.js';
import type { SpanStore } from './span-store.js';

export interface MemoryDeps {
  spans: SpanStore;
  kg: KgStore;
  config: MemoryConfig;
  inference: InferenceService | null;
  embedder: Embedder | null;
}

export function scopeRunOf(context: EffectContext): ScopeRun {
  return { runId: context.runId, rootRunId: context.rootRunId, sessionId: context.sessionId };
}

/** Boolean coercion of the origin (reference runtime-nodes §2 rule 4). */
export function coerceBool(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return ['true', '1', 'yes', 'on'].includes(value.trim().toLowerCase());
  return false;
}

/** A pin's value when it was given (not absent, not null). */
export function given(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** A value as text: strings as they are, others as JSON. */
export function textOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A list from a list, a single value, or nothing. */
export function listOf(value: unknown): unknown[] {
  if (value === null || value === undefined || value === '') return [];
  return Array.isArray(value) ? value : [value];
}

/** The result envelope of the span effects (`{mode: "executed", results: [one tool result]}`). */
export function executed(name: string, output: string, meta: Record<string, unknown>): { mode: string; results: Array<Record<string, unknown>> } {
  return { mode: 'executed', results: [{ call_id: 'memory', name, success: true, output, error: null, meta }] };
}
