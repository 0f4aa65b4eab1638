/**
 * The 422 a trigger config is refused with: `{detail: {reason_code, message, field}}` (reference
 * §3.10), the body the plugin's error format sends for every automation route.
 */
import { HttpError } from '@keel/plugin-sdk';

export type TriggerRefusalCode = 'invalid_definition' | 'unsupported_feature' | 'unknown_trigger_source';

export function triggerRefusal(reasonCode: TriggerRefusalCode, message: string, field: string): HttpError {
  return new HttpError(422, { reason_code: reasonCode, message, field });
}
