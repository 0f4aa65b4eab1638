/**
 * What semantic search embeds (reference §8.6 "Corpus and chunking"): live `kind: message` rows
 * (title, body and the ask texts) and live vfs files (the path as title; text files by content,
 * binary files by description). A document's `hash` covers its title and text, so a stored vector
 * is current exactly when its hash equals the document's.
 *
 * Chunking, in code points: a document of at most 2000 (title + newline + text) is one chunk;
 * a longer one is cut into windows of 1000 characters of text stepping 800 (200 overlap), each
 * prefixed with the title, at most `maxChunks` of them.
 */
import { createHash } from 'node:crypto';
import type { ChannelFs } from '../../content/fs/channel-fs.js';
import type { StoredMessage } from '../../records.js';
import type { HubDb } from '../../store/hub-db.js';

export type SemanticKind = 'message' | 'file';

/** A document's identity: `ref` is a message id or a file path. */
export interface DocKey {
  kind: SemanticKind;
  channel: string;
  ref: string;
}

export interface SemanticDoc extends DocKey {
  hash: string;
  chunks: string[];
}

const WHOLE_POINTS = 2000;
const WINDOW_POINTS = 1000;
const STEP_POINTS = 800;

export function docId(key: DocKey): string {
  return `${key.kind}\u0000${key.channel}\u0000${key.ref}`;
}

export function textHash(title: string, text: string): string {
  return createHash('sha256').update(`${title}\u0000${text}`).digest('hex').slice(0, 32);
}

export function chunksOf(title: string, text: string, maxChunks: number): string[] {
  const whole = title ? `${title}\n${text}` : text;
  const points = Array.from(text);
  if (Array.from(whole).length <= WHOLE_POINTS) return [whole];
  const out: string[] = [];
  for (let at = 0; at < points.length && out.length < maxChunks; at += STEP_POINTS) {
    const window = points.slice(at, at + WINDOW_POINTS).join('');
    out.push(title ? `${title}\n${window}` : window);
    if (at + WINDOW_POINTS >= points.length) break;
  }
  return out;
}

/** Reads documents from the hub's stores, always as they are now. */
export class SemanticCorpus {
  constructor(private readonly db: HubDb, private readonly fs: ChannelFs, private readonly maxChunks: number) {}

  /** The document as it is now, or null when it is gone (retracted, deleted, not a message). */
  read(key: DocKey): SemanticDoc | null {
    if (key.kind === 'message') {
      const m = this.db.messageById(key.ref);
      return m && m.channel === key.channel ? this.messageDoc(m) : null;
    }
    const file = this.fs.head(key.channel, key.ref);
    if (!file) return null;
    const text = file.content_b64 === null ? file.content : file.description;
    return { ...key, hash: textHash(file.path, text), chunks: chunksOf(file.path, text, this.maxChunks) };
  }

  messageDoc(m: StoredMessage): SemanticDoc | null {
    if (m.kind !== 'message' || m.retracted_at !== null) return null;
    const asks = Array.isArray(m.data?.asks) ? (m.data.asks as Array<{ text?: unknown }>).map((a) => (typeof a?.text === 'string' ? a.text : '')).filter(Boolean) : [];
    const text = [m.body, ...asks].join('\n');
    return { kind: 'message', channel: m.channel, ref: m.id, hash: textHash(m.title, text), chunks: chunksOf(m.title, text, this.maxChunks) };
  }

  /** Every live document: messages (each channel newest first, so a fill serves recent talk first), then files. */
  *all(): Generator<DocKey> {
    for (const { value } of this.db.messages.getRange({ reverse: true })) {
      if (value.kind === 'message' && value.retracted_at === null) yield { kind: 'message', channel: value.channel, ref: value.id };
    }
    for (const channel of this.db.channels.getKeys()) {
      for (const entry of this.fs.list(channel)) yield { kind: 'file', channel, ref: entry.path };
    }
  }
}
