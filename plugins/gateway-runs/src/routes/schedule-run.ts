/** `POST /runs/schedule` (seed 000 §4.3): a scheduled parent run that launches the target flow as child runs. */
import { randomUUID } from 'node:crypto';
import { badRequest, defineSchema, type Infer } from '@keel/plugin-sdk';
import { newRunState, type RunState } from '../runtime/run-state.js';
import { parseDuration } from '../flow/duration.js';
import type { ScheduleMeta } from '../runtime/schedule.js';
import { startAnswerJson, startProperties, type StartResolution } from './start-run.js';

export const scheduleBody = defineSchema({
  type: 'object',
  properties: {
    ...startProperties,
    start_at: { type: 'string', default: 'now' },
    interval: { type: 'string' },
    repeat_count: { type: 'integer', minimum: 1 },
    repeat_until: { type: 'string' },
    share_context: { type: 'boolean', default: false },
  },
});
export type ScheduleBody = Infer<typeof scheduleBody>;

export const scheduleRunResponse = defineSchema({
  ...startAnswerJson,
  required: [...startAnswerJson.required, 'schedule'],
  properties: { ...startAnswerJson.properties, schedule: { type: 'object' } },
});

export function newScheduledRun(body: ScheduleBody, account: string, { resolved, policy }: StartResolution): RunState {
  const startAt = body.start_at === undefined || body.start_at === 'now' ? new Date() : new Date(body.start_at);
  if (Number.isNaN(startAt.getTime())) throw badRequest("start_at must be an ISO 8601 timestamp or 'now'.", { code: 'invalid_request', field: 'body.start_at' });
  const intervalMs = body.interval === undefined ? null : parseDuration(body.interval);
  if (body.interval !== undefined && intervalMs === null) throw badRequest(`interval '${body.interval}' is not a duration (a number and a unit: 30s, 5 minutes, 2h, 1 day).`, { code: 'invalid_request', field: 'body.interval' });
  if (body.repeat_until !== undefined && Number.isNaN(Date.parse(body.repeat_until))) throw badRequest('repeat_until must be an ISO 8601 timestamp.', { code: 'invalid_request', field: 'body.repeat_until' });
  const now = new Date().toISOString();
  const runId = randomUUID();
  const schedule: ScheduleMeta = {
    kind: 'scheduled_run',
    interval: body.interval ?? null,
    interval_ms: intervalMs,
    repeat_count: body.repeat_count ?? null,
    repeat_until: body.repeat_until ?? null,
    start_at: startAt.toISOString(),
    share_context: body.share_context ?? false,
    target_workflow_id: resolved.workflow_id,
    target_bundle_ref: `${resolved.bundle_id}@${resolved.bundle_version}`,
    target_flow_id: resolved.flow_id,
    created_at: now,
    updated_at: now,
  };
  const input = { input_data: body.input_data ?? {}, workflow_selection: resolved };
  return newRunState({
    run_id: runId,
    account,
    workflow_id: `scheduled:${resolved.workflow_id}`,
    bundle_id: resolved.bundle_id,
    bundle_version: resolved.bundle_version,
    flow_id: resolved.flow_id,
    vars: { _meta: { schedule }, _runtime: { stream: false } },
    input_data: input,
    session_id: body.session_id ?? runId,
    builtin: 'scheduler',
    workflow_policy: policy,
  });
}
