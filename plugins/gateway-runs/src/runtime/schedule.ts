/**
 * Scheduled runs (seed 000 §4.3 `POST /runs/schedule`; reference gateway-surfaces §8): a parent run
 * that waits until each occurrence is due, launches the target flow as a child run, waits for it,
 * and repeats per its interval, `repeat_count` and `repeat_until`. Its steps are durable effects
 * like any flow's (wait_until, start_subworkflow), so a restart resumes the schedule.
 */
import type { BuiltinEffect } from '../flow/effect-requests.js';
import type { RunState } from './run-state.js';

export interface ScheduleMeta {
  kind: 'scheduled_run';
  interval: string | null;
  interval_ms: number | null;
  repeat_count: number | null;
  repeat_until: string | null;
  start_at: string;
  share_context: boolean;
  target_workflow_id: string;
  target_bundle_ref: string;
  target_flow_id: string;
  created_at: string;
  updated_at: string;
}

interface ScheduleState {
  occurrences: number;
  /** The newest child run launched (an automation listing shows it as the legacy automation's last occurrence). */
  last_child?: string;
  next_at: string | null;
  phase: 'wait' | 'launch' | 'done';
}

export type ScheduleStep = { kind: 'effect'; node: string; effect: BuiltinEffect } | { kind: 'complete'; output: Record<string, unknown> };

export function scheduleStep(run: RunState): ScheduleStep {
  const vars = run.vars;
  const meta = (vars._meta as { schedule: ScheduleMeta }).schedule;
  const state = ((vars._schedule as ScheduleState | undefined) ??= { occurrences: 0, next_at: meta.start_at, phase: 'wait' });
  const effects = (((vars._temp ??= {}) as { effects?: Record<string, unknown> }).effects ??= {});

  if (state.phase === 'wait') {
    if ('wait' in effects) {
      delete effects.wait;
      state.phase = 'launch';
    } else {
      return { kind: 'effect', node: 'wait', effect: { type: 'wait_until', payload: { until: String(state.next_at) } } };
    }
  }
  if (state.phase === 'launch') {
    if ('launch' in effects) {
      const launched = (effects.launch as { sub_run_id?: unknown } | null)?.sub_run_id;
      if (typeof launched === 'string') state.last_child = launched;
      delete effects.launch;
      state.occurrences++;
      const next = nextOccurrence(meta, state.occurrences);
      if (next === null) {
        state.phase = 'done';
        return { kind: 'complete', output: { success: true, occurrences: state.occurrences } };
      }
      state.next_at = next;
      state.phase = 'wait';
      return { kind: 'effect', node: 'wait', effect: { type: 'wait_until', payload: { until: next } } };
    }
    const inputs = { ...((run.input_data.input_data ?? {}) as Record<string, unknown>) };
    return { kind: 'effect', node: 'launch', effect: { type: 'start_subworkflow', payload: { workflow_id: meta.target_flow_id, vars: inputs, async: true, wait: true, inherit_context: meta.share_context, occurrence_index: state.occurrences } } };
  }
  return { kind: 'complete', output: { success: true, occurrences: state.occurrences } };
}

/** When the next occurrence is due, or null when the schedule is over. */
function nextOccurrence(meta: ScheduleMeta, done: number): string | null {
  if (!meta.interval_ms) return null;
  if (meta.repeat_count !== null && done >= meta.repeat_count) return null;
  const next = Date.now() + meta.interval_ms;
  if (meta.repeat_until && next > Date.parse(meta.repeat_until)) return null;
  return new Date(next).toISOString();
}
