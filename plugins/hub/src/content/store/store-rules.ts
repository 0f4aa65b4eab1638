/**
 * What a store write must satisfy beyond its version: key grammar, and per-prefix rules owned by
 * the concept the rows describe (meta, phases, rulings, decisions). A rule returns the value to
 * store (normalized) or throws the refusal.
 */
import type { StoreEntry } from '@keel/hub-client';
import { badRequest } from '@keel/plugin-sdk';
import type { AgentRecord, ChannelRecord } from '../../records.js';


export interface StoreWrite {
  c: ChannelRecord;
  seat: AgentRecord;
  key: string;
  value: unknown;
  previous: StoreEntry | undefined;
}

export interface StoreRule {
  /** An exact key, or a prefix ending in ':' or '/'. */
  matches(key: string): boolean;
  check(write: StoreWrite): unknown;
}

const MAX_KEY_CHARS = 256;

export function requireValidKey(key: string): string {
  const length = [...key].length;
  // eslint-disable-next-line no-control-regex
  if (length < 1 || length > MAX_KEY_CHARS || /[\u0000-\u001f\u007f]/.test(key) || key !== key.trim()) {
    throw badRequest(`store key '${key}' is not valid — use 1 to ${MAX_KEY_CHARS} characters, no control characters, no surrounding whitespace`);
  }
  return key;
}

export function prefixRule(prefix: string, check: (write: StoreWrite) => unknown): StoreRule {
  return { matches: (key) => key.startsWith(prefix), check };
}

export function exactRule(key: string, check: (write: StoreWrite) => unknown): StoreRule {
  return { matches: (k) => k === key, check };
}

/** vfs files are not store rows here: they have their own route and audit. */
export const fsKeyRule = prefixRule('fs/', ({ c }) => {
  throw badRequest(`store keys starting with 'fs/' are the channel's files — write them with PUT /channels/${c.name}/fs/<path>`);
});

/** Runs the first matching rule; unmatched keys store their value as sent. */
export function applyRules(rules: StoreRule[], write: StoreWrite): unknown {
  const rule = rules.find((r) => r.matches(write.key));
  return rule ? rule.check(write) : write.value;
}
