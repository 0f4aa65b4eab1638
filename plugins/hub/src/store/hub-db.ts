/**
 * The hub's sub-databases in the kernel's LMDB environment. Writes that belong together go
 * through `transaction()`, which resolves once the commit is durable; reads are synchronous.
 */
import type { Database } from 'lmdb';
import { prefixRange, type PluginStorage } from '@keel/plugin-sdk';
import type { AgentRecord, AskRecord, BlockRecord, ChannelRecord, MemberRecord, RatingRecord, StoredMessage } from '../records.js';

/** The statuses `questionRows` indexes: a question (open, blocked) and a decision (resolved). */
const QUESTION_STATUSES: ReadonlySet<string> = new Set(['open', 'blocked', 'resolved']);

export class HubDb {
  readonly agents: Database<AgentRecord, string>;
  /** sha256(seat key) → agent id. */
  readonly keys: Database<string, string>;
  readonly channels: Database<ChannelRecord, string>;
  /** `[channel, agent]` → membership. */
  readonly members: Database<MemberRecord, [string, string]>;
  /** `[agent, channel]` → 1: the reverse index of `members`. */
  readonly memberships: Database<1, [string, string]>;
  /** `[channel, seq]` → message; seq is dense from 1 per channel. */
  readonly messages: Database<StoredMessage, [string, number]>;
  /** message id → `[channel, seq]`. */
  readonly messageIds: Database<[string, number], string>;
  /** `[channel, parent id, child seq]` → 1: replies of a message, for threads and settlement. */
  readonly replies: Database<1, [string, string, number]>;
  /** `[channel, ask id]` → the ask and its discharge. */
  readonly asks: Database<AskRecord, [string, string]>;
  /** `[agent, channel]` → inbox cursor (highest seq acknowledged). */
  readonly cursors: Database<number, [string, string]>;
  /** `[agent, message id]` → when the seat read it. */
  readonly reads: Database<number, [string, string]>;
  /** `[channel, message id, rater]` → the rater's standing rating. */
  readonly ratings: Database<RatingRecord, [string, string, string]>;
  /** `[scope, agent]` → block (scope is a channel name or `hub`). */
  readonly blocks: Database<BlockRecord, [string, string]>;
  /**
   * `[channel, seq]` → status, for the message rows posted `open`, `blocked` or `resolved`: the rows
   * the board, the desk and the digest look at, so they read those instead of whole transcripts.
   */
  readonly questionRows: Database<string, [string, number]>;
  /** Versions of the indexes built from the messages (so a hub upgraded in place backfills them once). */
  readonly indexVersions: Database<number, string>;

  /** `memberIds` per channel; only this process writes the hub's databases (the CLI goes through HTTP). */
  private readonly memberSets = new Map<string, Set<string>>();
  /** The channels whose membership the transaction callback running now has changed. */
  private membershipChanges: Set<string> | null = null;

  constructor(private readonly storage: PluginStorage) {
    this.agents = storage.openDB('agents');
    this.keys = storage.openDB('keys');
    this.channels = storage.openDB('channels');
    this.members = storage.openDB('members');
    this.memberships = storage.openDB('memberships');
    this.messages = storage.openDB('messages');
    this.messageIds = storage.openDB('message-ids');
    this.replies = storage.openDB('replies');
    this.asks = storage.openDB('asks');
    this.cursors = storage.openDB('cursors');
    this.reads = storage.openDB('reads');
    this.ratings = storage.openDB('ratings');
    this.blocks = storage.openDB('blocks');
    this.questionRows = storage.openDB('question-rows');
    this.indexVersions = storage.openDB('index-versions');
  }

  /** Fills the message indexes a hub written before they existed lacks (once; before the hub serves). */
  async ensureIndexes(): Promise<void> {
    if (this.indexVersions.get('question-rows') === 1) return;
    await this.transaction(() => {
      for (const { value: m } of this.messages.getRange()) this.indexQuestionRow(m);
      this.indexVersions.put('question-rows', 1);
    });
  }

  /** Records a newly written message row in `questionRows` when it asks or settles something (in a write transaction). */
  indexQuestionRow(m: StoredMessage): void {
    if (m.kind === 'message' && QUESTION_STATUSES.has(m.status)) this.questionRows.put([m.channel, m.seq], m.status);
  }

  /** A channel's message rows posted open, blocked or resolved, in seq order (callers still check retraction and closure). */
  *questionsOf(channel: string): Generator<StoredMessage> {
    for (const key of this.questionRows.getKeys({ start: [channel, 0], end: [channel, Number.MAX_SAFE_INTEGER] })) {
      const m = this.messages.get(key);
      if (m) yield m;
    }
  }

  /** One durable write transaction across the hub's databases (use `putSync`/`removeSync` inside). */
  transaction<T>(fn: () => T): Promise<T> {
    const changed = new Set<string>();
    const result = this.storage.transaction(() => {
      const outer = this.membershipChanges;
      this.membershipChanges = changed;
      try {
        return fn();
      } finally {
        this.membershipChanges = outer;
      }
    });
    // Forgotten again once the commit has settled (committed or rolled back): a read made meanwhile,
    // even inside this batch, may have cached a set this commit changes or never makes true.
    const forget = () => { for (const c of changed) this.memberSets.delete(c); };
    return result.then((r) => (forget(), r), (err: unknown) => { forget(); throw err; });
  }

  /**
   * Called (inside a write transaction) by every write that adds or removes a channel member, so
   * `memberIds` stops serving that channel's cached set now and again after the commit settles.
   */
  membershipChanged(channel: string): void {
    this.memberSets.delete(channel);
    if (!this.membershipChanges) throw new Error('a channel membership changes only inside HubDb.transaction');
    this.membershipChanges.add(channel);
  }

  openDB<V, K extends import('lmdb').Key>(name: string): Database<V, K> {
    return this.storage.openDB<V, K>(name);
  }

  /** The highest seq of a channel (0 when empty). */
  lastSeq(channel: string): number {
    for (const key of this.messages.getKeys({ start: [channel, Number.MAX_SAFE_INTEGER], end: [channel, 0], reverse: true, limit: 1 })) return key[1];
    return 0;
  }

  messageById(id: string): StoredMessage | undefined {
    const at = this.messageIds.get(id);
    return at ? this.messages.get(at) : undefined;
  }

  isMember(channel: string, agent: string): boolean {
    return this.members.doesExist([channel, agent]);
  }

  /**
   * The member ids of a channel (read-only: the set is shared). Kept in memory per channel, since the
   * live fan-out asks once per message; `membershipChanged` drops a channel's set when it changes.
   */
  memberIds(channel: string): ReadonlySet<string> {
    let ids = this.memberSets.get(channel);
    if (!ids) {
      ids = new Set<string>();
      for (const key of this.members.getKeys(prefixRange([channel]))) ids.add(key[1]);
      this.memberSets.set(channel, ids);
    }
    return ids;
  }

  membersOf(channel: string): MemberRecord[] {
    return [...this.members.getRange(prefixRange([channel]))].map((e) => e.value);
  }

  channelsOf(agent: string): string[] {
    return [...this.memberships.getKeys(prefixRange([agent]))].map((k) => k[1]);
  }
}
