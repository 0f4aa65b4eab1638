// The channel store and what the board reads from it: work items, rulings.

export interface StoreEntry<T = unknown> {
  channel: string;
  key: string;
  value: T;
  version: number;
  updated_by: string;
  updated_at: number;
}

export interface StoreKeyRow {
  key: string;
  version: number;
  updated_by: string;
  updated_at: number;
}

/** A `work:<id>` store row as a board card: the value's fields, null where the value lacks them. */
export interface WorkRow {
  id: string;
  title: string | null;
  status: string | null;
  owner: string | null;
  card: unknown;
  priority: unknown;
  receipt: unknown;
  version: number;
  updated_by: string;
  updated_at: number;
}

/** A store row as the board reports it (the same shape as a served store entry). */
export type StoreRow = StoreEntry;

/** A message citing a work item, by `data.item_ref` or by mentioning its id. */
export interface WorkMessage {
  id: string;
  channel: string;
  seq: number;
  sender: string;
  status: string;
  title: string;
  reply_to: string | null;
  created_at: number;
  via: 'item_ref' | 'mention';
}

/** `GET /work/{item_id}`: one item across the caller's channels. */
export interface WorkReport {
  item_id: string;
  work_rows: Array<Omit<StoreEntry, 'key'>>;
  claims: StoreRow[];
  decisions: StoreRow[];
  messages: WorkMessage[];
}

/** The value of a `ruling:<slug>` store row. */
export interface RulingValue {
  text: string;
  /** Empty (everyone), seat ids, or the roles `member`, `owner`, `operator`. */
  scope: string[];
  source_message_id?: string;
  active?: boolean;
}

export interface RulingRow {
  key: string;
  value: RulingValue;
  version: number;
  updated_by: string;
}

export interface UnacknowledgedRuling extends RulingRow {
  /** The version the viewer acknowledged, or null. */
  ack_version: number | null;
}
