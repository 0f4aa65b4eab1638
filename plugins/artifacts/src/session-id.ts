/** A session id as the gateway takes it: 1 to 256 characters (a storage key part), no control characters. */
import { badRequest, KEY_ID_MAX_LENGTH } from '@keel/plugin-sdk';
import { hasControlCharacters } from './upload-names.js';

export function checkSessionId(value: unknown, field = 'session_id'): string {
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(`${field} is required: name the conversation the file belongs to.`, { code: 'missing_session_id', field });
  if (value.length > KEY_ID_MAX_LENGTH || hasControlCharacters(value)) {
    throw badRequest(`${field} must be at most ${KEY_ID_MAX_LENGTH} characters without control characters.`, { code: 'invalid_session_id', field });
  }
  return value;
}
