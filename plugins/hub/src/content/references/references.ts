/**
 * Cross-references in message bodies (seed §4): `@folder/file.md` names a file of the message's
 * own channel, `@channel:folder/file.md` a file of another channel — visible only when the reader
 * belongs to it — and a token equal to a known seat id is a mention, never a file.
 */
import { pathProblem } from '../fs/fs-paths.js';

export interface ReferenceRow {
  token: string;
  kind: 'file' | 'mention';
  channel: string;
  path: string | null;
  exists: boolean;
  version: number | null;
}

export interface ReferenceLookups {
  isSeat(id: string): boolean;
  /** True when the channel exists and the viewer may read it. */
  canRead(channel: string): boolean;
  /** The live version of a file, or null. */
  version(channel: string, path: string): number | null;
}

/** `@` not preceded by a word character or another path character (so e-mail addresses do not count). */
const TOKEN = /(?<![\w@/.:-])@([^\s@]+)/gu;
const TRAILING_PUNCTUATION = /[.,;:!?)\]}>'"`*_]+$/u;

/** Splits `channel:path` (a channel name may itself hold ':' as in `dm:a--b`, so the last ':' before the first '/' wins). */
function target(token: string, ownChannel: string): { channel: string; path: string } {
  const slash = token.indexOf('/');
  const head = slash < 0 ? token : token.slice(0, slash);
  const colon = head.lastIndexOf(':');
  return colon < 0 ? { channel: ownChannel, path: token } : { channel: token.slice(0, colon), path: token.slice(colon + 1) };
}

export function references(body: string, ownChannel: string, lookups: ReferenceLookups): ReferenceRow[] {
  const rows: ReferenceRow[] = [];
  const seen = new Set<string>();
  for (const match of body.matchAll(TOKEN)) {
    const token = match[1]!.replace(TRAILING_PUNCTUATION, '');
    if (!token || seen.has(token)) continue;
    seen.add(token);
    if (lookups.isSeat(token)) {
      rows.push({ token, kind: 'mention', channel: ownChannel, path: null, exists: true, version: null });
      continue;
    }
    // A bare word that is not a seat and names no folder, extension or channel is not a reference.
    if (!/[/.:]/.test(token)) continue;
    const { channel, path } = target(token, ownChannel);
    if (!channel || pathProblem(path) !== null) continue;
    const version = lookups.canRead(channel) ? lookups.version(channel, path) : null;
    rows.push({ token, kind: 'file', channel, path, exists: version !== null, version });
  }
  return rows;
}
