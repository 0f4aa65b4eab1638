/** The shape every pure helper has: resolved input pins (and the node, and the run read-only) to an output. */
import type { PureNodeType } from '../node-types.js';

export type Helper = PureNodeType['evaluate'];
export type Helpers = Record<string, Helper>;
export type Inputs = Record<string, unknown>;

export const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Text of a value as the older Keel helpers write it (JSON for objects; `''` for null). */
export const str = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));
