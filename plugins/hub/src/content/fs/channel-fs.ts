/**
 * The per-channel virtual file system (seed §2.7): every write makes a new version, a delete is a
 * tombstone version (so versions stay monotonic), old versions stay readable by number. Each write
 * by a seat posts a `kind: 'fs'` audit message authored by the writer in the same transaction.
 */
import type { FsEntry, FsFile, FsPutArgs } from '@keel/hub-client';
import { prefixRange, badRequest, conflict, notFound, payloadTooLarge } from '@keel/plugin-sdk';
import type { Database } from 'lmdb';
import type { WriteScope } from '../../messages/hub-writer.js';
import type { HubDb } from '../../store/hub-db.js';
import { capText, sanitize } from '../../text-rules.js';
import { guessMime } from './fs-paths.js';

export const TEXT_CAP_BYTES = 256 * 1024;
export const BINARY_CAP_BYTES = 4 * 1024 * 1024;
const DESCRIPTION_CHARS = 200;
const BASE64_CHARS = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * One stored version of a path: the listed entry's fields (without `encoding`, which follows from
 * `content_b64`), the file's content, and whether it is a tombstone (a delete stores one).
 */
export interface FsVersion extends Omit<FsEntry, 'encoding'>, Pick<FsFile, 'content' | 'content_b64' | 'mime'> {
  deleted: boolean;
}

/** A write whose content has been checked (caps, base64) before the transaction. */
export interface CheckedWrite extends Pick<FsVersion, 'content' | 'content_b64' | 'size' | 'mime' | 'description' | 'described'> {
  expect_version: number | null;
}

/** Runs inside the writing transaction after a version is stored (charter receipts, ...). */
export type FsWriteHook = (channel: string, written: FsVersion) => void;

export function toEntry(v: FsVersion): FsEntry {
  const entry: FsEntry = { path: v.path, version: v.version, updated_by: v.updated_by, updated_at: v.updated_at, size: v.size, description: v.description, described: v.described };
  if (v.content_b64 !== null) entry.encoding = 'base64';
  return entry;
}

export function toFile(v: FsVersion): FsFile {
  const binary = v.content_b64 !== null;
  return {
    path: v.path, content: v.content, mime: v.mime, description: v.description, size_bytes: v.size, version: v.version,
    updated_by: v.updated_by, updated_at: v.updated_at, content_b64: v.content_b64, encoding: binary ? 'base64' : null,
  };
}

/** A description derived from the first non-empty line, for writes that give none. */
export function deriveDescription(content: string): string {
  const line = content.split('\n').map((l) => l.replace(/^[\s#>*-]+/, '').trim()).find((l) => l !== '') ?? '';
  return [...line].slice(0, DESCRIPTION_CHARS).join('');
}

/** Validates a write body outside the transaction: exactly one content field, caps, base64. */
export function checkWrite(path: string, input: FsPutArgs): CheckedWrite {
  const hasText = typeof input.content === 'string';
  const hasBinary = typeof input.content_b64 === 'string';
  if (hasText === hasBinary) throw badRequest('provide exactly one of content or content_b64');
  const given = input.description === undefined ? '' : sanitize(input.description).trim();
  capText(given, DESCRIPTION_CHARS, 'description');
  const mime = input.mime?.trim() || guessMime(path, hasBinary);
  const expect = input.expect_version ?? null;
  if (hasText) {
    const content = input.content!;
    const size = Buffer.byteLength(content);
    if (size > TEXT_CAP_BYTES) throw payloadTooLarge(`file content is ${size} bytes; the text cap is ${TEXT_CAP_BYTES} bytes`);
    return { content, content_b64: null, size, mime, description: given || deriveDescription(content), described: given !== '', expect_version: expect };
  }
  const b64 = input.content_b64!;
  if (b64.length % 4 !== 0 || !BASE64_CHARS.test(b64)) throw badRequest('content_b64 is not valid base64 (standard alphabet, padded, no whitespace)');
  const size = Buffer.from(b64, 'base64').length;
  if (size > BINARY_CAP_BYTES) throw payloadTooLarge(`file content is ${size} bytes decoded; the binary cap is ${BINARY_CAP_BYTES} bytes`);
  return { content: '', content_b64: b64, size, mime, description: given || `${mime}, ${size} bytes`, described: given !== '', expect_version: expect };
}

function versionConflict(current: number): never {
  throw conflict(`store version conflict: current version is ${current}`);
}

export class ChannelFs {
  /** `[channel, path]` → newest version number (a tombstone included). */
  private readonly heads: Database<number, [string, string]>;
  /** `[channel, path, version]` → that version. */
  private readonly versions: Database<FsVersion, [string, string, number]>;
  readonly onWrite: FsWriteHook[] = [];

  constructor(db: HubDb) {
    this.heads = db.openDB('fs-heads');
    this.versions = db.openDB('fs-versions');
  }

  /** The newest version of a path, tombstone included (undefined when never written). */
  newest(channel: string, path: string): FsVersion | undefined {
    const v = this.heads.get([channel, path]);
    return v === undefined ? undefined : this.versions.get([channel, path, v]);
  }

  /** The live head of a path (undefined when absent or deleted). */
  head(channel: string, path: string): FsVersion | undefined {
    const v = this.newest(channel, path);
    return v && !v.deleted ? v : undefined;
  }

  /** The head, or an archived version by number; 404 otherwise. */
  read(channel: string, path: string, version?: number): FsVersion {
    if (version === undefined) {
      const head = this.head(channel, path);
      if (!head) throw notFound(`file '${path}' not found in '${channel}'`);
      return head;
    }
    const v = this.versions.get([channel, path, version]);
    if (!v || v.deleted) throw notFound(`version ${version} of '${path}' not found in '${channel}'`);
    return v;
  }

  /** Live files whose path starts with `prefix`, sorted by path. */
  list(channel: string, prefix = ''): FsEntry[] {
    const out: FsEntry[] = [];
    for (const { key } of this.heads.getRange(prefixRange([channel, prefix], { partial: true }))) {
      if (!key[1].startsWith(prefix)) continue;
      const head = this.head(channel, key[1]);
      if (head) out.push(toEntry(head));
    }
    return out;
  }

  /** Inside a write: stores a new version (CAS on `expect_version`; 0 = must not exist) and posts the audit row when `audit`. */
  putIn(w: WriteScope, channel: string, by: string, path: string, write: CheckedWrite, at: number, audit = true): FsVersion {
    const newest = this.newest(channel, path);
    const current = newest && !newest.deleted ? newest.version : 0;
    if (write.expect_version !== null && write.expect_version !== current) versionConflict(current);
    const stored: FsVersion = {
      path, version: (newest?.version ?? 0) + 1, deleted: false, content: write.content, content_b64: write.content_b64, mime: write.mime,
      description: write.description, described: write.described, size: write.size, updated_by: by, updated_at: at,
    };
    this.store(channel, stored);
    if (audit) w.insert(auditDraft(channel, by, 'put', stored, at));
    return stored;
  }

  /** Inside a write: tombstones a live path (false when absent); the tombstone takes the next version. */
  deleteIn(w: WriteScope, channel: string, by: string, path: string, expectVersion: number | null, at: number): boolean {
    const newest = this.newest(channel, path);
    const current = newest && !newest.deleted ? newest.version : 0;
    if (expectVersion !== null && expectVersion !== current) versionConflict(current);
    if (!newest || newest.deleted) return false;
    const tombstone: FsVersion = {
      path, version: newest.version + 1, deleted: true, content: '', content_b64: null, mime: newest.mime, description: '',
      described: false, size: 0, updated_by: by, updated_at: at,
    };
    this.store(channel, tombstone);
    w.insert(auditDraft(channel, by, 'delete', tombstone, at));
    return true;
  }

  private store(channel: string, v: FsVersion): void {
    this.versions.put([channel, v.path, v.version], v);
    this.heads.put([channel, v.path], v.version);
    for (const hook of this.onWrite) hook(channel, v);
  }
}

/** The audit row of a vfs write: authored by the writer, `kind: 'fs'`. */
function auditDraft(channel: string, by: string, op: 'put' | 'delete', v: FsVersion, at: number) {
  const body = op === 'put' ? `${by} wrote ${v.path} (v${v.version}, ${v.size} bytes)` : `${by} deleted ${v.path} (tombstone v${v.version})`;
  return {
    channel, sender: by, kind: 'fs' as const, status: 'fyi' as const, urgency: 'inbox' as const, critical: false, downgraded: false, to: [],
    title: `fs:${op} ${v.path}`, body, data: { op, path: v.path, version: v.version, size_bytes: v.size }, reply_to: null, created_at: at,
  };
}
