/**
 * What a client names an upload with, made safe: the file name (a base name, never a path), the
 * member path of a folder upload (relative, no `..`, nothing absolute, no NUL), the content type
 * (a plain `type/subtype`), and the modality the reference carries.
 */
import { lookup } from 'mime-types';
import { badRequest } from '@keel/plugin-sdk';

export const FALLBACK_FILENAME = 'upload.bin';
export const FALLBACK_CONTENT_TYPE = 'application/octet-stream';
const MAX_NAME_BYTES = 255;
const MAX_SOURCE_PATH_CHARS = 1024;
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Whether a client's text carries NUL or another control character (never valid in a name or tag). */
export function hasControlCharacters(text: string): boolean {
  return CONTROL.test(text);
}

/**
 * The base name of what the client sent: backslashes count as separators, the last segment is
 * kept, control characters refuse the name. Empty, `.` or `..` fall back to `upload.bin`.
 */
export function cleanFilename(sent: string): string {
  if (CONTROL.test(sent)) throw badRequest('The file name contains control characters; rename the file.', { code: 'invalid_filename', field: 'filename' });
  const base = sent.replace(/\\/g, '/').split('/').pop()!.trim();
  if (base === '' || base === '.' || base === '..') return FALLBACK_FILENAME;
  if (Buffer.byteLength(base) > MAX_NAME_BYTES) throw badRequest(`The file name is longer than ${MAX_NAME_BYTES} bytes; rename the file.`, { code: 'invalid_filename', field: 'filename' });
  return base;
}

/**
 * A folder upload's member path (`docs/img/a.png`): backslashes become `/`, empty and `.` segments
 * are dropped; `..`, an absolute path, a drive (`C:`), NUL or other control characters refuse it.
 */
export function cleanSourcePath(sent: string): string {
  const refuse = (why: string) => badRequest(`source_path must be a relative path inside the uploaded folder (${why}).`, { code: 'invalid_source_path', field: 'source_path' });
  if (sent.length > MAX_SOURCE_PATH_CHARS) throw refuse(`at most ${MAX_SOURCE_PATH_CHARS} characters`);
  if (CONTROL.test(sent)) throw refuse('no control characters');
  const slashed = sent.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) throw refuse('no absolute path or drive');
  const segments = slashed.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.some((s) => s === '..')) throw refuse("no '..' segment");
  if (segments.some((s) => s.includes(':'))) throw refuse("no ':' in a segment");
  if (segments.some((s) => Buffer.byteLength(s) > MAX_NAME_BYTES)) throw refuse(`segments of at most ${MAX_NAME_BYTES} bytes`);
  if (segments.length === 0) throw refuse('it names no file');
  return segments.join('/');
}

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/**
 * The stored content type: the form value, else the part's own type, else a guess from the name,
 * else octet-stream. A part's `text/plain` counts only when the name guesses nothing else: busboy
 * reports it for a part that sent no type at all.
 */
/**
 * Source files `mime-types` (and browsers, which send the same guesses) type wrongly or not at all:
 * `.ts` as an MPEG transport stream, `.rs` as an XML format, `.py` and `.go` as nothing. Search would
 * file them as video or binary; they are code.
 */
const SOURCE_CODE_TYPES: Readonly<Record<string, string>> = {
  ts: 'text/x-typescript', tsx: 'text/x-typescript', mts: 'text/x-typescript', cts: 'text/x-typescript',
  rs: 'text/x-rust', py: 'text/x-python', go: 'text/x-go', kt: 'text/x-kotlin', swift: 'text/x-swift',
};

export function resolveContentType(filename: string, formValue: string | undefined, partType: string | undefined): string {
  const code = SOURCE_CODE_TYPES[filename.slice(filename.lastIndexOf('.') + 1).toLowerCase()];
  const guessed = (code ?? (lookup(filename) || '')).toLowerCase();
  const form = essenceOf(formValue);
  if (form) return form;
  const part = essenceOf(partType);
  // A browser's part type for a source file is the same wrong guess (or text/plain): the code type wins.
  if (code && part && (part === lookup(filename) || part.startsWith('text/'))) return code;
  if (part && !(part === 'text/plain' && guessed)) return part;
  return guessed || FALLBACK_CONTENT_TYPE;
}

function essenceOf(value: string | undefined): string | null {
  const essence = (value ?? '').split(';')[0]!.trim().toLowerCase();
  return MIME.test(essence) && essence !== FALLBACK_CONTENT_TYPE ? essence : null;
}

const TEXTUAL = /(json|xml|yaml|markdown)/;

/** image / audio / video / text / file, from the content type (reference §2.2). */
export function modalityOf(contentType: string): string {
  if (contentType.startsWith('image/')) return 'image';
  if (contentType.startsWith('audio/')) return 'audio';
  if (contentType.startsWith('video/')) return 'video';
  if (contentType.startsWith('text/') || TEXTUAL.test(contentType)) return 'text';
  return 'file';
}

/** `name.ext` → `name-<suffix>.ext` (the suffix before the last extension, if any). */
export function withSuffix(name: string, suffix: string): string {
  const slash = name.lastIndexOf('/');
  const dot = name.lastIndexOf('.');
  if (dot > slash + 1) return `${name.slice(0, dot)}-${suffix}${name.slice(dot)}`;
  return `${name}-${suffix}`;
}
