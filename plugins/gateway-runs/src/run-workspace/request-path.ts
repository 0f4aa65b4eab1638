/**
 * The `path` a client gives to the run workspace routes (reference gateway-surfaces §1.8 step 1):
 * always relative to the run's workspace folder, in `/`-separated components. Nothing is decoded
 * or normalised beyond that (no Unicode folding: a fullwidth dot or a division slash is a plain
 * character of a name, never a separator), so what is opened is exactly what was named.
 */
import { badRequest } from '@keel/plugin-sdk';

/** Longer paths are refused before touching the disk (Linux PATH_MAX). */
export const MAX_REQUEST_PATH_CHARS = 4096;

/** The components of a request path below the workspace root; `[]` is the root itself. */
export function requestSegments(given: unknown): string[] {
  if (given === undefined || given === null || given === '') return [];
  if (typeof given !== 'string') throw badRequest('path must be a string relative to the workspace folder.', { code: 'invalid_request', field: 'query.path' });
  if (given.length > MAX_REQUEST_PATH_CHARS) throw badRequest(`path is longer than ${MAX_REQUEST_PATH_CHARS} characters.`, { code: 'invalid_request', field: 'query.path' });
  if (given.includes('\0')) throw badRequest('path contains a NUL character.', { code: 'invalid_request', field: 'query.path' });
  // A Windows client's separators count as separators (so `..\x` is `..` too).
  const slashed = given.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) {
    throw badRequest(`${given} is absolute; give a path relative to the workspace folder.`, { code: 'invalid_request', field: 'query.path' });
  }
  const segments = slashed.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw badRequest(`${given} goes up a folder ('..'); give a path inside the workspace folder.`, { code: 'invalid_request', field: 'query.path' });
  return segments;
}
