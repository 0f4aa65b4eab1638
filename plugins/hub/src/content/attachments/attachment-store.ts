/**
 * Content-addressed attachments (reference §1.3, §7.6): a channel's upload is a row keyed by the
 * blob's sha256, the bytes live once on disk whatever the number of channels holding them, and
 * re-uploading the same bytes returns the first row. Posts cite attachments by id; a blob whose
 * every carrying message was retracted is no longer served.
 */
import type { AttachmentRef, UploadedAttachment } from '@keel/hub-client';
import { prefixRange, badRequest, notFound, payloadTooLarge } from '@keel/plugin-sdk';
import type { Database } from 'lmdb';
import type { Readable } from 'node:stream';
import { nowSeconds } from '../../ids.js';
import type { StoredMessage } from '../../records.js';
import type { HubDb } from '../../store/hub-db.js';
import { capText, sanitize } from '../../text-rules.js';
import { BlobFiles, TooLarge, type Received } from './blob-files.js';

/** A channel's attachment row, stored and served as is (the upload answer). */
export type AttachmentRow = UploadedAttachment;

export interface AttachmentLimits {
  maxBytes: number;
  channelQuotaBytes: number;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const FILENAME_CHARS = 200;

/** The id, or 400 when it is not a sha256 hex digest. */
export function requireBlobId(id: string): string {
  if (!SHA256_HEX.test(id)) throw badRequest("attachment id must be the blob's sha256 hex");
  return id;
}

/** The last path component, without control characters; `attachment` when nothing is left. */
export function cleanFilename(raw: string | undefined): string {
  const name = sanitize(raw ?? '').split(/[\\/]/).pop()!.trim();
  return capText(name, FILENAME_CHARS, 'filename') || 'attachment';
}

export class Attachments {
  /** `[channel, id]` → the channel's upload row. */
  private readonly rows: Database<AttachmentRow, [string, string]>;
  /** `[channel, id, seq]` → 1: the messages carrying an attachment. */
  private readonly carriers: Database<1, [string, string, number]>;
  readonly files: BlobFiles;

  constructor(private readonly db: HubDb, root: string, private readonly limits: AttachmentLimits) {
    this.rows = db.openDB('attachments');
    this.carriers = db.openDB('attachment-carriers');
    this.files = new BlobFiles(root);
  }

  tooLarge(): Error {
    return payloadTooLarge(`attachment exceeds ${this.limits.maxBytes} bytes (operator-configurable cap)`);
  }

  /** Bytes of attachments a channel holds. */
  used(channel: string): number {
    let total = 0;
    for (const { value } of this.rows.getRange(prefixRange([channel]))) total += value.size;
    return total;
  }

  private checkQuota(channel: string, size: number): void {
    const used = this.used(channel);
    if (used + size > this.limits.channelQuotaBytes) {
      throw payloadTooLarge(`attachment storage of '${channel}' is full: ${used} of ${this.limits.channelQuotaBytes} bytes used, this upload needs ${size} (operator-configurable quota)`);
    }
  }

  /** Stores an upload (idempotent by content); the declared length is checked before reading. */
  async upload(channel: string, by: string, body: Readable, declaredLength: number | null, filename: string, contentType: string): Promise<AttachmentRow> {
    if (declaredLength !== null && declaredLength > this.limits.maxBytes) throw this.tooLarge();
    let received: Received;
    try {
      received = await this.files.receive(body, this.limits.maxBytes);
    } catch (err) {
      if (err instanceof TooLarge) throw this.tooLarge();
      throw err;
    }
    if (received.size === 0) {
      await this.files.discard(received);
      throw badRequest('the attachment body is empty — send the file bytes as the request body');
    }
    const first = this.rows.get([channel, received.id]);
    if (first) {
      await this.files.discard(received);
      return first;
    }
    try {
      this.checkQuota(channel, received.size);
    } catch (err) {
      await this.files.discard(received);
      throw err;
    }
    await this.files.commit(received);
    const row: AttachmentRow = { channel, id: received.id, filename, content_type: contentType, size: received.size, created_by: by, created_at: nowSeconds() };
    return this.db.transaction(() => {
      const raced = this.rows.get([channel, row.id]);
      if (raced) return raced;
      this.checkQuota(channel, row.size);
      this.rows.put([channel, row.id], row);
      return row;
    });
  }

  /** The row to serve: 400 for a malformed id, 404 when unknown or when every carrying message was retracted. */
  servable(channel: string, id: string): AttachmentRow {
    requireBlobId(id);
    const row = this.rows.get([channel, id]);
    if (!row || this.onlyRetractedCarriers(channel, id)) throw notFound(`attachment '${id}' not found in '${channel}'`);
    return row;
  }

  private onlyRetractedCarriers(channel: string, id: string): boolean {
    let carried = false;
    for (const key of this.carriers.getKeys({ start: [channel, id, 0], end: [channel, id, Number.MAX_SAFE_INTEGER] })) {
      const m = this.db.messages.get([channel, key[2]]);
      if (!m || !carries(m.data, id)) continue;
      if (m.retracted_at === null) return false;
      carried = true;
    }
    return carried;
  }

  /**
   * Erasure (messages/erasure.ts), inside the erasing write: drops the erased message's carrier
   * entries and, for each attachment no other unerased message of the channel carries, the
   * channel's upload row; returns those ids. `m` is the row as stored before erasure.
   */
  releaseIn(m: StoredMessage): string[] {
    const released: string[] = [];
    for (const id of attachmentIdsOf(m)) {
      this.carriers.remove([m.channel, id, m.seq]);
      let held = false;
      for (const key of this.carriers.getKeys({ start: [m.channel, id, 0], end: [m.channel, id, Number.MAX_SAFE_INTEGER] })) {
        const other = this.db.messages.get([m.channel, key[2]]);
        if (other && other.seq !== m.seq && typeof other.erased_at !== 'number' && carries(other.data, id)) held = true;
      }
      if (held) continue;
      this.rows.remove([m.channel, id]);
      released.push(id);
    }
    return released;
  }

  /** Erasure, after the commit: deletes the bytes of each blob no channel's upload row holds any more; returns those ids. */
  async dropUnheld(ids: string[]): Promise<string[]> {
    const dropped: string[] = [];
    for (const id of ids) {
      let held = false;
      for (const key of this.rows.getKeys()) {
        if (key[1] === id) {
          held = true;
          break;
        }
      }
      if (held) continue;
      await this.files.remove(id);
      dropped.push(id);
    }
    return dropped;
  }

  /**
   * `hub.poster.attachments`: turns post refs into full rows, refusing ids this channel does not
   * hold. Runs inside the posting write just before the insert, so the message about to be
   * inserted takes the channel's next seq; the carrier index records it (and is re-checked on read).
   */
  resolveIn(channel: string, refs: Array<{ id: string; filename?: string }>): AttachmentRef[] {
    const nextSeq = this.db.lastSeq(channel) + 1;
    const seen = new Set<string>();
    return refs.map((ref) => {
      // The reference's sentences (§8.1 B5): a ref that is not a blob of this channel is bad input (400).
      if (typeof ref?.id !== 'string') throw badRequest("each attachment ref needs an id (the blob's sha256 from the upload)");
      const id = ref.id.trim().toLowerCase();
      if (!SHA256_HEX.test(id)) throw badRequest('attachment id must be the sha256 hex the upload returned');
      if (seen.has(id)) throw badRequest(`duplicate attachment ref ${id.slice(0, 12)}…`);
      seen.add(id);
      const row = this.rows.get([channel, id]);
      if (!row) throw badRequest(`attachment ${id.slice(0, 12)}… is not uploaded to '${channel}' — POST the bytes to /channels/{channel}/attachments first`);
      this.carriers.put([channel, id, nextSeq], 1);
      return { id, filename: ref.filename === undefined ? row.filename : cleanFilename(ref.filename), content_type: row.content_type, size: row.size };
    });
  }
}

/** The attachment ids a message's data lists. */
export function attachmentIdsOf(m: Pick<StoredMessage, 'data'>): string[] {
  const list = m.data?.attachments;
  return Array.isArray(list) ? [...new Set(list.map((a) => (a as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string'))] : [];
}

function carries(data: Record<string, unknown> | null, id: string): boolean {
  const list = data?.attachments;
  return Array.isArray(list) && list.some((a) => (a as { id?: unknown })?.id === id);
}
