/**
 * The hub charter (seed §2.6, reference §6 HubCharterDoc): version 0 is the packaged text, an
 * operator's replacement is the next version. Reading records the seat's receipt (the version and
 * the view it read), and `/whoami` carries a pointer saying whether that receipt is current.
 */
import type { HubCharterDoc, HubCharterPointer } from '@keel/hub-client';
import { badRequest, payloadTooLarge } from '@keel/plugin-sdk';
import type { Database } from 'lmdb';
import { nowSeconds } from '../../ids.js';
import type { AgentRecord } from '../../records.js';
import type { HubDb } from '../../store/hub-db.js';
import { PACKAGED_HUB_CHARTER } from './packaged-charters.js';
import { ROLES, viewOf } from './charter-views.js';

export const CHARTER_TEXT_CAP_BYTES = 256 * 1024;
const READ_WITH = 'read_charter() / GET /charter';
const READ_ALL_WITH = 'read_charter(full=True) / GET /charter?full=true';

/** A charter version as stored (its number is the key). */
type CharterVersion = Pick<HubCharterDoc, 'text' | 'updated_by' | 'updated_at'>;

interface Receipt {
  version: number;
  /** The roles the view read was cut for. */
  view: string[];
  at: number;
}

/** What the charter needs to know about a seat: the roles its view is cut for, its powers. */
export interface SeatStanding {
  /** `member`, plus `owner` while it owns a live room and `delegate` while a grant is live. */
  roles(seat: AgentRecord): string[];
  powers(seat: AgentRecord): string[];
  /** A line about the seat's live delegation, or null. */
  delegateBrief(seat: AgentRecord): string | null;
}

export class HubCharter {
  /** version (≥ 1) → an operator's text; version 0 is the packaged text and is never stored. */
  private readonly versions: Database<CharterVersion, number>;
  /** agent → its latest receipt. */
  private readonly receipts: Database<Receipt, string>;

  constructor(private readonly db: HubDb, private readonly standing: SeatStanding) {
    this.versions = db.openDB('hub-charter');
    this.receipts = db.openDB('hub-charter-receipts');
  }

  current(): { version: number } & CharterVersion {
    for (const { key, value } of this.versions.getRange({ reverse: true, limit: 1 })) return { version: key, ...value };
    return { version: 0, text: PACKAGED_HUB_CHARTER, updated_by: 'hub', updated_at: null };
  }

  viewFor(seat: AgentRecord): string[] {
    return seat.operator ? [...ROLES] : this.standing.roles(seat);
  }

  /** `GET /charter`: the seat's view (or the whole text), recording its receipt. */
  async read(seat: AgentRecord, full: boolean): Promise<HubCharterDoc> {
    const c = this.current();
    const view = this.viewFor(seat);
    const cut = viewOf(c.text, view, full);
    const readView = full ? [...ROLES] : view;
    const before = this.receipts.get(seat.id);
    if (!before || before.version !== c.version || readView.some((r) => !before.view.includes(r))) {
      const merged = before?.version === c.version ? [...new Set([...before.view, ...readView])] : readView;
      await this.db.transaction(() => this.receipts.put(seat.id, { version: c.version, view: merged, at: nowSeconds() }));
    }
    const doc: HubCharterDoc = {
      version: c.version, text: cut.text, updated_by: c.updated_by, updated_at: c.updated_at, packaged: c.version === 0, scope: 'hub',
      your_receipt: c.version, view, powers: this.standing.powers(seat), sliced: cut.sliced, omitted: cut.omitted,
      view_note: cut.sliced ? `cut for ${view.join(', ')}: ${cut.omitted.length} section(s) for other roles omitted — ${READ_ALL_WITH} reads everything` : '',
      bytes: Buffer.byteLength(cut.text), full_bytes: Buffer.byteLength(c.text), read_all_with: READ_ALL_WITH,
    };
    const brief = this.standing.delegateBrief(seat);
    if (brief) doc.delegate_brief = brief;
    return doc;
  }

  /** The whoami pointer: never the text, only whether the seat's receipt is current. */
  pointer(seat: AgentRecord): HubCharterPointer {
    const { version } = this.current();
    const view = this.viewFor(seat);
    const receipt = this.receipts.get(seat.id);
    const current = receipt?.version === version;
    const viewCurrent = current && view.every((r) => receipt.view.includes(r));
    const pointer: HubCharterPointer = { version, your_receipt: receipt?.version ?? null, current, view, view_current: viewCurrent, read_with: READ_WITH };
    if (!receipt) pointer.note = `you have not read the hub charter yet — ${READ_WITH}`;
    else if (!current) pointer.note = `the hub charter is at v${version}; you last read v${receipt.version} — ${READ_WITH}`;
    else if (!viewCurrent) pointer.note = `your seat now also holds ${view.filter((r) => !receipt.view.includes(r)).join(', ')} — re-read the charter for the sections cut for it`;
    return pointer;
  }

  /** A published version (≥ 1) as archived, or undefined; version 0 is the packaged text, never stored. */
  published(version: number): ({ version: number } & CharterVersion) | undefined {
    const row = version >= 1 ? this.versions.get(version) : undefined;
    return row ? { version, ...row } : undefined;
  }

  /** Published versions, newest first (the packaged v0 is never listed). */
  history(limit: number): Array<{ version: number } & CharterVersion> {
    return [...this.versions.getRange({ reverse: true, limit })].map(({ key, value }) => ({ version: key, ...value }));
  }

  /** Every seat's latest receipt: the version and the roles of the view it read, and when. */
  receiptRows(): Array<{ agent_id: string; version: number; view: string[]; read_at: number }> {
    return [...this.receipts.getRange()].map(({ key, value }) => ({ agent_id: key, version: value.version, view: value.view, read_at: value.at }));
  }

  /** An operator's replacement: the next version. Its writer (a seat) holds a receipt for it. */
  async replace(text: string, by: string, writerIsSeat: boolean): Promise<{ version: number } & CharterVersion> {
    if (!text.trim()) throw badRequest('the hub charter cannot be empty — send the full text in `text`');
    const size = Buffer.byteLength(text);
    if (size > CHARTER_TEXT_CAP_BYTES) throw payloadTooLarge(`charter text is ${size} bytes; the cap is ${CHARTER_TEXT_CAP_BYTES} bytes`);
    const at = nowSeconds();
    return this.db.transaction(() => {
      const version = this.current().version + 1;
      const row: CharterVersion = { text, updated_by: by, updated_at: at };
      this.versions.put(version, row);
      if (writerIsSeat) this.receipts.put(by, { version, view: [...ROLES], at });
      return { version, ...row };
    });
  }
}
