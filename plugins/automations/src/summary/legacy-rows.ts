/**
 * Legacy scheduled roots (`POST /runs/schedule`) as rows of `GET /automations` (reference
 * gateway-surfaces §3.6, §8.3): read through `runs.launcher.legacySchedules`, appended on the
 * listing's last page, newest first, read-only (`capabilities: ["legacy"]`; the per-automation
 * routes answer 404 for them).
 */
import type { LegacySchedule } from '@keel/plugin-gateway-runs';
import { DEFAULT_GROWING_MAX_TOKENS } from '../definitions/policy.js';
import type { AutomationStatus } from '../model.js';
import { scheduleBlock } from '../triggers/schedule-wording.js';
import type { NormalisedTrigger } from '../triggers/trigger-source.js';

const EXCERPT_CHARS = 280;

/** The automation status a legacy root shows: archived with its session, else from the run. */
export function legacyStatus(root: LegacySchedule): AutomationStatus {
  if (root.archived_at) return 'archived';
  if (root.status === 'running' || root.status === 'waiting') return root.paused ? 'paused' : 'active';
  // A cancelled schedule was stopped on purpose: it ended, as a completed one did.
  return root.status === 'failed' ? 'failed' : 'completed';
}

/** The root's schedule as a schedule@1 binding: `every` when its interval is one (`5 minutes` → `5m`), `count` and `until`. */
function legacyTrigger(root: LegacySchedule): NormalisedTrigger & { binding_id: string } {
  const config: Record<string, unknown> = { start_at: root.schedule.start_at, anchor: root.schedule.start_at };
  if (root.schedule.interval !== null) config.every = shortInterval(root.schedule.interval);
  if (root.schedule.repeat_count !== null) config.count = root.schedule.repeat_count;
  if (root.schedule.repeat_until !== null) config.until = root.schedule.repeat_until;
  return { binding_id: root.run_id, source_id: 'schedule', source_version: 1, config };
}

/** "5 minutes" → "5m", "2 h" → "2h"; another text is kept (its wording reads "every <text>"). */
function shortInterval(interval: string): string {
  const match = /^\s*([1-9][0-9]*)\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hrs?|hours?|d|days?)\s*$/i.exec(interval);
  return match ? `${match[1]}${match[2]!.charAt(0).toLowerCase()}` : interval;
}

export function legacyRow(root: LegacySchedule, nowMs: number): Record<string, unknown> {
  const status = legacyStatus(root);
  const trigger = legacyTrigger(root);
  const nextFireAt = status === 'active' ? root.wait_until : null;
  const wording = scheduleBlock(trigger, 'UTC', nextFireAt, nowMs);
  const child = root.last_child;
  const ended = child !== null && (child.status === 'completed' || child.status === 'failed' || child.status === 'cancelled');
  const answer = typeof child?.output?.response === 'string' ? child.output.response : typeof child?.output?.answer === 'string' ? child.output.answer : '';
  const row: Record<string, unknown> = {
    automation_id: root.run_id,
    title: `Scheduled run of ${root.schedule.target_workflow_id}`,
    status,
    trigger,
    context_mode: 'independent',
    growing_max_tokens: DEFAULT_GROWING_MAX_TOKENS,
    workspace_root: null,
    current_occurrence: null,
    occurrence_count: root.children,
    time_zone: wording.time_zone,
    schedule_rule_text: wording.schedule_rule_text,
    schedule_text: wording.schedule_text,
    attention: { pending_waits: 0, unread: false, unseen_count: 0, cursor: 'att1:0', items: [], waits: [] },
    last_occurrence: child
      ? {
          run_id: child.run_id,
          index: root.children,
          status: child.wait ? 'waiting' : child.status,
          attempts: 1,
          fired_at: child.created_at,
          finished_at: ended ? child.updated_at : null,
          excerpt: [...answer].slice(0, EXCERPT_CHARS).join(''),
          notify: null,
        }
      : null,
    last_notification: null,
    paused_reason: null,
    legacy: true,
    revision: null,
    updated_at: root.updated_at,
    capabilities: ['legacy'],
    session_kind: 'automation',
  };
  if (nextFireAt) row.next_fire_at = nextFireAt;
  if (wording.next_run_at) row.next_run_at = wording.next_run_at;
  if (wording.next_run_local) row.next_run_local = wording.next_run_local;
  return row;
}
