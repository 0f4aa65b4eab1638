/**
 * Room charters: `channel/charter.md` in each room's files. A new room is born with v1 written by
 * its creator; reading the head records the reader's receipt and writing it records the writer's.
 * A room whose meta says `norms_required` refuses posts until the seat's receipt is current.
 */
import type { ChannelCharterDescriptor, CharterDebtRow } from '@keel/hub-client';
import { conflict } from '@keel/plugin-sdk';
import type { Database } from 'lmdb';
import { nowSeconds } from '../../ids.js';
import type { WriteScope } from '../../messages/hub-writer.js';
import type { AgentRecord, ChannelRecord } from '../../records.js';
import type { HubDb } from '../../store/hub-db.js';
import { checkWrite, type ChannelFs, type FsVersion } from '../fs/channel-fs.js';
import { ROOM_CHARTER_PATH } from '../fs/fs-paths.js';
import type { ChannelMeta } from '../store/channel-meta.js';
import { roomCharterTemplate } from './packaged-charters.js';

export function readWith(channel: string): string {
  return `read_charter(channel='${channel}')`;
}

export class RoomCharters {
  /** `[channel, agent]` → the charter version the seat last read (or wrote). */
  private readonly receipts: Database<number, [string, string]>;
  /** `[channel, agent]` → when that receipt was recorded (for `GET /channels/{c}/charter/receipts`). */
  private readonly receiptTimes: Database<number, [string, string]>;

  constructor(private readonly db: HubDb, private readonly fs: ChannelFs, private readonly meta: (channel: string) => ChannelMeta | undefined) {
    this.receipts = db.openDB('room-charter-receipts');
    this.receiptTimes = db.openDB('room-charter-receipt-times');
    // Writing the charter is reading it: the writer's receipt moves with its write.
    fs.onWrite.push((channel, written) => {
      if (written.path === ROOM_CHARTER_PATH && !written.deleted) {
        this.receipts.put([channel, written.updated_by], written.version);
        this.receiptTimes.put([channel, written.updated_by], written.updated_at);
      }
    });
  }

  /** Inside the creating write: seeds `channel/charter.md` v1 by the creator (no audit row: the creation notice covers it). */
  seedIn(w: WriteScope, c: ChannelRecord): void {
    const text = roomCharterTemplate(c.name, c.created_by);
    this.fs.putIn(w, c.name, c.created_by, ROOM_CHARTER_PATH, checkWrite(ROOM_CHARTER_PATH, { content: text }), c.created_at, false);
  }

  head(channel: string): FsVersion | undefined {
    return this.fs.head(channel, ROOM_CHARTER_PATH);
  }

  descriptor(channel: string): ChannelCharterDescriptor | null {
    const head = this.head(channel);
    return head ? { path: ROOM_CHARTER_PATH, version: head.version, updated_by: head.updated_by, updated_at: head.updated_at } : null;
  }

  receipt(channel: string, agent: string): number | null {
    return this.receipts.get([channel, agent]) ?? null;
  }

  /** Records that `agent` read `version` (only when it moves). */
  async recordRead(channel: string, agent: string, version: number): Promise<void> {
    if (this.receipts.get([channel, agent]) === version) return;
    await this.db.transaction(() => {
      this.receipts.put([channel, agent], version);
      this.receiptTimes.put([channel, agent], nowSeconds());
    });
  }

  /** When the seat's receipt was recorded (null without one). */
  receiptTime(channel: string, agent: string): number | null {
    return this.receiptTimes.get([channel, agent]) ?? null;
  }

  /** Post gate: `norms_required` rooms refuse seats that have not read the current charter. */
  gate(c: ChannelRecord, seat: AgentRecord): void {
    if (this.meta(c.name)?.norms_required !== true) return;
    const head = this.head(c.name);
    if (!head || this.receipt(c.name, seat.id) === head.version) return;
    throw conflict(`this channel requires reading its charter first: ${readWith(c.name)} (v${head.version}, at '${ROOM_CHARTER_PATH}'), then retry`);
  }

  /** Room charters of the seat's channels it has not read at their current version. */
  debts(seat: AgentRecord): CharterDebtRow[] {
    const out: CharterDebtRow[] = [];
    for (const channel of this.db.channelsOf(seat.id)) {
      const head = this.head(channel);
      const receipt = this.receipt(channel, seat.id);
      if (!head || receipt === head.version) continue;
      out.push({ scope: channel, version: head.version, your_receipt: receipt, gated: this.meta(channel)?.norms_required === true, read_with: readWith(channel), reason: 'version' });
    }
    return out;
  }

  /** `GET /channels/{c}/charter`: the room charter with the reader's receipt (recorded by reading). */
  async read(channel: string, seat: AgentRecord): Promise<Record<string, unknown> | null> {
    const head = this.head(channel);
    if (!head) return null;
    await this.recordRead(channel, seat.id, head.version);
    return {
      scope: channel, path: ROOM_CHARTER_PATH, text: head.content, version: head.version, updated_by: head.updated_by, updated_at: head.updated_at,
      your_receipt: head.version, gated: this.meta(channel)?.norms_required === true, bytes: head.size, read_with: readWith(channel),
    };
  }
}
