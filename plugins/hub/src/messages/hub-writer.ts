/**
 * Every hub write goes through here: one durable LMDB transaction, inside which messages get
 * their seq (dense per channel) and chain hash; once the commit is flushed, new rows and
 * tombstones are pushed to the live socket. Nothing is pushed for a write that failed.
 */
import { ulid } from '../ids.js';
import type { StoredMessage } from '../records.js';
import type { HubDb } from '../store/hub-db.js';
import { chainHash } from '../chain/chain-hash.js';
import { commitContent } from '../chain/keel-commitment.js';
import type { LiveBus } from '../live/live-bus.js';

/** A message before the hub gives it an id, a seq and a hash. */
export type MessageDraft = Omit<StoredMessage, 'id' | 'seq' | 'hash' | 'retracted_at' | 'retracted_by' | 'content_salt' | 'content_hash' | 'keel_hash' | 'erased_at' | 'erased_by'>;

export interface WriteScope {
  /** Inserts a message in this transaction; it is pushed live after the commit. */
  insert(draft: MessageDraft): StoredMessage;
  /** Marks a stored message as changed (a tombstone), to push after the commit. */
  changed(message: StoredMessage): void;
}

export class HubWriter {
  constructor(private readonly db: HubDb, private readonly live: LiveBus) {}

  async run<T>(fn: (w: WriteScope) => T): Promise<T> {
    let outgoing: StoredMessage[] = [];
    const result = await this.db.transaction(() => {
      outgoing = []; // a retried transaction callback starts clean
      return fn({
        insert: (draft) => {
          const m = this.insertInTransaction(draft);
          outgoing.push(m);
          return m;
        },
        changed: (m) => void outgoing.push(m),
      });
    });
    for (const m of outgoing) this.live.publish(m);
    return result;
  }

  private insertInTransaction(draft: MessageDraft): StoredMessage {
    const seq = this.db.lastSeq(draft.channel) + 1;
    const previous = seq > 1 ? this.db.messages.get([draft.channel, seq - 1]) : undefined;
    const m: StoredMessage = { ...draft, id: ulid(), seq, hash: '', retracted_at: null, retracted_by: null };
    m.hash = chainHash(previous?.hash ?? '', m);
    commitContent(m, previous?.keel_hash ?? '');
    this.db.messages.put([m.channel, seq], m);
    this.db.messageIds.put(m.id, [m.channel, seq]);
    if (m.reply_to) this.db.replies.put([m.channel, m.reply_to, seq], 1);
    this.db.indexQuestionRow(m);
    return m;
  }
}

/** A system notice from the hub itself (`sender: hub`, `kind: system`, status fyi). */
export function systemNotice(channel: string, body: string, createdAt: number): MessageDraft {
  return {
    channel, sender: 'hub', kind: 'system', status: 'fyi', urgency: 'inbox', critical: false, downgraded: false,
    to: [], title: '', body, data: null, reply_to: null, created_at: createdAt,
  };
}
