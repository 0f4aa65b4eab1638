/** Tags a caller adds to an upload or import: a JSON object of short strings, bounded. */
import { badRequest } from '@keel/plugin-sdk';
import { hasControlCharacters } from './upload-names.js';

export const MAX_TAGS = 32;
const MAX_KEY = 64;
const MAX_VALUE = 256;

/** From a form field (JSON text) or a JSON body value; null/undefined/empty is no tags. */
export function callerTags(raw: unknown, field = 'tags'): Record<string, string> {
  if (raw === undefined || raw === null || raw === '') return {};
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      throw badRequest(`${field} must be a JSON object of string values, like {"shared": "user"}.`, { code: 'invalid_tags', field });
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest(`${field} must be a JSON object of string values, like {"shared": "user"}.`, { code: 'invalid_tags', field });
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_TAGS) throw badRequest(`${field} has more than ${MAX_TAGS} entries.`, { code: 'invalid_tags', field });
  const tags: Record<string, string> = {};
  for (const [key, v] of entries) {
    if (typeof v !== 'string') throw badRequest(`The tag '${key.slice(0, MAX_KEY)}' must have a string value.`, { code: 'invalid_tags', field });
    if (key === '' || key.length > MAX_KEY || v.length > MAX_VALUE || hasControlCharacters(key + v)) {
      throw badRequest(`Tag keys are 1 to ${MAX_KEY} characters and values at most ${MAX_VALUE}, without control characters.`, { code: 'invalid_tags', field });
    }
    tags[key] = v;
  }
  return tags;
}
