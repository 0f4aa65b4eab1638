/**
 * What an uploaded file is called and typed as: the client's name without any folder part, control
 * or direction-changing characters, at most 255 characters; the part's content type when it is a
 * well-formed `type/subtype`, else a guess from the name, else `application/octet-stream`.
 */
import mime from 'mime-types';

const MAX_FILENAME_CHARS = 255;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;
const GENERIC_TYPES = new Set(['application/octet-stream', 'text/plain']);

export function cleanFilename(name: string | undefined): string {
  const base = (name ?? '').split(/[/\\]/).pop()!.replace(UNSAFE_CHARS, '').trim();
  const clipped = [...base].slice(0, MAX_FILENAME_CHARS).join('');
  return clipped === '' || clipped === '.' || clipped === '..' ? 'upload' : clipped;
}

export function contentTypeOf(filename: string, partType: string | undefined): string {
  const sent = (partType ?? '').split(';')[0]!.trim().toLowerCase();
  const guessed = mime.lookup(filename);
  if (MEDIA_TYPE.test(sent) && !(GENERIC_TYPES.has(sent) && guessed)) return sent;
  return guessed || (MEDIA_TYPE.test(sent) ? sent : 'application/octet-stream');
}
