/** Shapes the engine files share (the model's, plus what it reads of a run). */
import type { RunOutcome } from '@keel/plugin-gateway-runs';

export type { AttentionRecord, AutomationRecord, CurrentOccurrence, OccurrenceRecord, PendingFire } from '../model.js';

/** What the engine reads of an ended (or still running) run. */
export type RunOutcomeLike = Pick<RunOutcome, 'status' | 'output' | 'error'>;
