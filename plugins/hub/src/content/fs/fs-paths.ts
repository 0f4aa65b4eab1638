/**
 * Rules for vfs paths (reference §1.5): 1..512 characters, relative, segments separated by `/`,
 * none empty, `.`, `..` or padded with whitespace, no backslash or control character. The router
 * already percent-decodes the path, so an encoded `%2E%2E` segment is checked as `..` (400, not 404).
 */
import { badRequest } from '@keel/plugin-sdk';

export const MAX_PATH_CHARS = 512;
/** A path is part of a storage key, whose size is bounded: 512 four-byte characters would not fit. */
export const MAX_PATH_BYTES = 1024;
/** Files under this prefix belong to the channel: only its owner and operators write them. */
export const CHANNEL_PREFIX = 'channel/';
export const ROOM_CHARTER_PATH = 'channel/charter.md';

/** The refusal (the reference's sentence, §8.1 B5) for a path that breaks the rules, or null when it is valid. */
export function pathProblem(path: string): string | null {
  const length = [...path].length;
  if (length < 1 || length > MAX_PATH_CHARS) return `fs path must be 1..${MAX_PATH_CHARS} chars`;
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_PATH_BYTES) return `fs path is ${bytes} bytes in UTF-8; paths are at most ${MAX_PATH_BYTES} bytes`;
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(path)) return 'fs path contains illegal characters';
  if (path.startsWith('/')) return "fs path must be relative (no leading '/')";
  if (path.split('/').some((segment) => segment === '' || segment === '.' || segment === '..' || segment !== segment.trim())) {
    return "fs path has empty, '.', '..' or whitespace-padded segments";
  }
  return null;
}

/** The path, or 400 with the rule it breaks. */
export function requireValidPath(path: string): string {
  const problem = pathProblem(path);
  if (problem) throw badRequest(problem);
  return path;
}

const MIME_BY_EXTENSION: Record<string, string> = {
  md: 'text/markdown', markdown: 'text/markdown', txt: 'text/plain', json: 'application/json', csv: 'text/csv',
  yaml: 'application/yaml', yml: 'application/yaml', html: 'text/html', css: 'text/css', js: 'text/javascript', ts: 'text/plain',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif', bmp: 'image/bmp',
  svg: 'image/svg+xml', pdf: 'application/pdf',
};

/** A mime type guessed from the extension, for writes that declare none. */
export function guessMime(path: string, binary: boolean): string {
  const dot = path.lastIndexOf('.');
  const ext = dot > path.lastIndexOf('/') ? path.slice(dot + 1).toLowerCase() : '';
  return MIME_BY_EXTENSION[ext] ?? (binary ? 'application/octet-stream' : 'text/plain');
}
