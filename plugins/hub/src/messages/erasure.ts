/**
 * Verifiable erasure: an operator removes a retracted message's bytes for good. The row keeps its
 * metadata, its reference `hash` and its Keel commitments (`content_hash`, `keel_hash`), so both
 * chains still verify; its content and content salt are gone, as are the attachments only it
 * carried and its entry in the search index (which drops rows the live bus shows erased).
 */
import type { ErasureResult } from '@keel/hub-client';
import { conflict, notFound } from '@keel/plugin-sdk';
import type { Attachments } from '../content/attachments/attachment-store.js';
import { nowSeconds } from '../ids.js';
import type { StoredMessage } from '../records.js';
import type { HubDb } from '../store/hub-db.js';
import type { HubWriter } from './hub-writer.js';

export class Erasure {
  constructor(private readonly db: HubDb, private readonly writer: HubWriter, private readonly attachments: Attachments) {}

  /** Erases a retracted message (idempotent); `by` is the operator seat's id, or `operator` for the admin key. */
  async erase(channel: string, id: string, by: string): Promise<ErasureResult> {
    const found = this.db.messageById(id);
    if (!found || found.channel !== channel) throw notFound(`message '${id}' not found in '${channel}'`);
    const { row, released } = await this.writer.run((w) => {
      const m = this.db.messages.get([channel, found.seq])!;
      if (typeof m.erased_at === 'number') return { row: m, released: [] as string[] };
      if (m.retracted_at === null) {
        throw conflict(`message '${id}' is not retracted — only a retracted message can be erased; retract it first (POST /channels/${channel}/messages/${id}/retract), then erase it`);
      }
      if (typeof m.keel_hash !== 'string') {
        throw conflict(`message '${id}' was written before the hub kept content commitments — erasing it would leave its ledger row unverifiable, so it stays retracted`);
      }
      const released = this.attachments.releaseIn(m);
      const erased: StoredMessage = { ...m, status: 'fyi', title: '', body: '', data: null, content_salt: null, erased_at: nowSeconds(), erased_by: by };
      this.db.messages.put([channel, m.seq], erased);
      w.changed(erased);
      return { row: erased, released };
    });
    const blobs = await this.attachments.dropUnheld(released);
    return {
      channel, message_id: row.id, seq: row.seq, erased: true, erased_at: row.erased_at!, erased_by: row.erased_by ?? by,
      // Only rows with Keel's commitment are ever erased (checked above).
      hash: row.hash, content_hash: row.content_hash!, keel_hash: row.keel_hash!, attachments_released: released, blobs_deleted: blobs,
    };
  }
}
