/**
 * Recall levels (reference runtime-nodes §8.1, the origin's `memory/recall_levels.py`): `urgent`,
 * `standard`, `deep` set defaults and ceilings of each memory node's budgets; a value above the
 * ceiling is clamped with a warning. Blank is no level (the node's own defaults).
 */
export type RecallLevel = 'urgent' | 'standard' | 'deep';

interface Bound {
  default: number;
  max: number;
}

export interface RecallPolicy {
  querySpans: Bound;
  deepScan: boolean;
  deepScanMaxSpans: number;
  deepScanMaxMessages: number;
  connectedExpansion: boolean;
  hops: number;
  renderedMessages: Bound;
  rehydrateMessages: Bound;
  kgMinScore: { default: number; floor: number };
  kgLimit: Bound;
  kgMaxInputTokens: Bound;
}

const LEVELS: Record<RecallLevel, RecallPolicy> = {
  urgent: {
    querySpans: { default: 2, max: 3 }, deepScan: false, deepScanMaxSpans: 0, deepScanMaxMessages: 0, connectedExpansion: false, hops: 0,
    renderedMessages: { default: 30, max: 60 }, rehydrateMessages: { default: 30, max: 60 },
    kgMinScore: { default: 0.55, floor: 0.5 }, kgLimit: { default: 20, max: 40 }, kgMaxInputTokens: { default: 600, max: 1000 },
  },
  standard: {
    querySpans: { default: 5, max: 8 }, deepScan: true, deepScanMaxSpans: 25, deepScanMaxMessages: 200, connectedExpansion: true, hops: 1,
    renderedMessages: { default: 80, max: 150 }, rehydrateMessages: { default: 80, max: 200 },
    kgMinScore: { default: 0.4, floor: 0.25 }, kgLimit: { default: 80, max: 200 }, kgMaxInputTokens: { default: 1200, max: 3000 },
  },
  deep: {
    querySpans: { default: 8, max: 20 }, deepScan: true, deepScanMaxSpans: 100, deepScanMaxMessages: 400, connectedExpansion: true, hops: 2,
    renderedMessages: { default: 200, max: 600 }, rehydrateMessages: { default: 200, max: 800 },
    kgMinScore: { default: 0.25, floor: 0.0 }, kgLimit: { default: 200, max: 1000 }, kgMaxInputTokens: { default: 2400, max: 6000 },
  },
};

/** The level named by `value` (blank: none); an unknown name fails the effect as the origin does. */
export function recallLevelOf(value: unknown): RecallLevel | null {
  const text = value === undefined || value === null ? '' : String(value).trim().toLowerCase();
  if (!text) return null;
  if (text in LEVELS) return text as RecallLevel;
  throw new Error(`Unknown recall_level: ${String(value).trim()}`);
}

export function policyOf(level: RecallLevel): RecallPolicy {
  return LEVELS[level];
}

/**
 * `value` (or the level's default when absent) kept within the level's ceiling; a clamp adds the
 * origin's warning `recall_level=<level>: clamped <name> from <a> to <b>`.
 */
export function clampTo(level: RecallLevel | null, name: string, value: number | null, bound: Bound | null, warnings: string[], fallback: number): number {
  if (!level || !bound) return value ?? fallback;
  const asked = value ?? bound.default;
  if (asked > bound.max) {
    warnings.push(`recall_level=${level}: clamped ${name} from ${asked} to ${bound.max}`);
    return bound.max;
  }
  return asked;
}

/** A whole number from a pin (`"5"`, `5.0`), else null. */
export function intOf(value: unknown): number | null {
  if (value === null || value === undefined || value === '' || typeof value === 'boolean') return null;
  const n = Number(value);
  return Number.isFinite(n) ? Math.trunc(n) : null;
}
