/**
 * Small checks of client JSON with the automation envelope's 422s: an object with only known keys,
 * a string, an integer. Every refusal names the field as the client wrote it (`target.input_data`).
 */
import { automationError } from '../errors.js';
import type { AutomationReasonCode } from '../model.js';

export type Json = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` as an object with no key outside `allowed` (422 `code` naming `<field>.<key>`). */
export function strictObject(value: unknown, field: string, allowed: readonly string[], code: AutomationReasonCode): Json {
  if (!isPlainObject(value)) throw automationError(422, code, `${field} must be an object.`, { field });
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      const at = `${field}.${key}`;
      throw automationError(422, code, `${at} is not a field of ${field} (allowed: ${allowed.join(', ')}).`, { field: at });
    }
  }
  return value;
}

export function optionalString(value: unknown, field: string, code: AutomationReasonCode, maxLength: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw automationError(422, code, `${field} must be a string.`, { field });
  if (value.length > maxLength) throw automationError(422, code, `${field} is longer than ${maxLength} characters.`, { field });
  return value;
}

export function integerIn(value: unknown, field: string, min: number, max: number, code: AutomationReasonCode = 'invalid_definition'): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw automationError(422, code, `${field} must be an integer from ${min} to ${max}.`, { field });
  }
  return value;
}

/** Control characters (C0, DEL, C1) and lone surrogates are refused in ids that become keys and log fields. */
// eslint-disable-next-line no-control-regex -- the point is to find control characters
const UNSAFE_ID = /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A client idempotency key (`request_id`, `command_id`): non-empty, at most `maxLength`, no control characters. */
export function clientId(value: unknown, field: string, maxLength: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw automationError(422, 'invalid_request', `${field} must be a non-empty string.`, { field });
  if (value.length > maxLength) throw automationError(422, 'invalid_request', `${field} is longer than ${maxLength} characters (setting limits.maxIdLength).`, { field });
  if (UNSAFE_ID.test(value)) throw automationError(422, 'invalid_request', `${field} may not contain control characters.`, { field });
  return value;
}
