/**
 * The automation routes' error envelope (seed 000 §7, reference gateway-surfaces §3.10): every
 * non-2xx answer is `{detail: {reason_code, message, field?, command_id?}}`. Refusals of this plugin
 * are `AutomationError`s; the kernel's own (401, 403, request validation, malformed JSON, size
 * limits, unknown paths) and other plugins' (the launcher's start refusals) are reshaped by
 * `automationErrorFormat`, which the plugin declares as its `errorFormat`.
 */
import { HttpError, type ErrorFormatter } from '@keel/plugin-sdk';
import type { AutomationReasonCode } from './model.js';

export interface AutomationErrorDetail {
  reason_code: AutomationReasonCode;
  message: string;
  /** The request field at fault, without a `body.`/`query.`/`params.` prefix (`target.flow_id`). */
  field?: string;
  /** The command the refusal is about (commands and PATCH). */
  command_id?: string;
}

export class AutomationError extends HttpError {
  declare readonly detail: AutomationErrorDetail & Record<string, unknown>;

  constructor(status: number, detail: AutomationErrorDetail, options: { cause?: unknown; headers?: Record<string, string> } = {}) {
    super(status, { ...detail }, { code: detail.reason_code, ...(detail.field ? { field: detail.field } : {}), ...options });
  }
}

/** An automation refusal to throw: `throw automationError(409, 'invalid_state', 'Automation is not archived.')`. */
export function automationError(
  status: number,
  reasonCode: AutomationReasonCode,
  message: string,
  extra: { field?: string; command_id?: string; cause?: unknown } = {},
): AutomationError {
  const detail: AutomationErrorDetail = { reason_code: reasonCode, message };
  if (extra.field) detail.field = extra.field;
  if (extra.command_id) detail.command_id = extra.command_id;
  return new AutomationError(status, detail, extra.cause === undefined ? {} : { cause: extra.cause });
}

/** 422 `invalid_request` naming the field. */
export const invalidRequest = (field: string, message: string): AutomationError => automationError(422, 'invalid_request', message, { field });
/** 422 `invalid_definition` naming the field. */
export const invalidDefinition = (field: string, message: string): AutomationError => automationError(422, 'invalid_definition', message, { field });
/** 404 `automation_not_found` (also another account's automation: its existence is not told). */
export const automationNotFound = (automationId: string): AutomationError =>
  automationError(404, 'automation_not_found', `No automation '${truncate(automationId)}' in your account.`);

const REASON_CODES: ReadonlySet<string> = new Set<AutomationReasonCode>([
  'unauthorized', 'forbidden', 'not_found', 'automation_not_found', 'occurrence_not_found', 'revision_conflict', 'automation_busy',
  'invalid_state', 'identity_conflict', 'cursor_expired', 'history_unavailable', 'invalid_request', 'invalid_definition',
  'unsupported_feature', 'unknown_trigger_source', 'rate_limited', 'unavailable', 'internal_error',
]);

/** Kernel codes of a request that could not be read or validated: a 422 `invalid_request` (FastAPI's validation answer). */
const VALIDATION_CODES: ReadonlySet<string> = new Set(['invalid_request', 'invalid_json', 'json_too_deep', 'invalid_body']);

/** The reason code a plain (not automation-shaped) error of this status gets (reference §3.10). */
function reasonForStatus(status: number): AutomationReasonCode {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 409) return 'invalid_state';
  if (status === 429) return 'rate_limited';
  if (status === 503) return 'unavailable';
  if (status >= 500) return 'internal_error';
  return 'invalid_request';
}

/** `body.target.flow_id` → `target.flow_id`: the field as the client named it. */
function clientField(field: string | undefined): string | undefined {
  if (!field) return undefined;
  const stripped = field.replace(/^(body|query|params|header)(\.|$)/, '');
  return stripped === '' ? undefined : stripped;
}

function messageOf(err: HttpError): string {
  if (typeof err.detail === 'string') return err.detail;
  const message = (err.detail as { message?: unknown }).message;
  return typeof message === 'string' ? message : err.message;
}

export const automationErrorFormat: ErrorFormatter = (err) => {
  const source = typeof err.detail === 'object' ? (err.detail as Record<string, unknown>) : {};
  let status = err.status;
  let reason: AutomationReasonCode;
  let message = messageOf(err);
  if (status === 401) reason = 'unauthorized';
  else if (status === 403) reason = 'forbidden';
  else if (err.code && REASON_CODES.has(err.code) && !(err.code === 'invalid_request' && status === 400)) reason = err.code as AutomationReasonCode;
  else if (err.code && VALIDATION_CODES.has(err.code) && status === 400) {
    status = 422;
    reason = 'invalid_request';
    message = err.code === 'invalid_json' ? 'The request body is not valid JSON.' : message.replace(/\b(body|query|params)\./g, '');
  } else reason = reasonForStatus(status);
  const detail: AutomationErrorDetail = { reason_code: reason, message };
  const field = typeof source.field === 'string' ? source.field : clientField(err.field);
  if (field) detail.field = field;
  if (typeof source.command_id === 'string') detail.command_id = source.command_id;
  return { status, body: { detail } };
};

function truncate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
