/**
 * Local conversations (`/v1/conversations`, reference §1.12) for the hosted lane, whose upstream is
 * stateless chat: the record in LMDB (`conversations`), and every stored turn's items in
 * `conversation-items` under `[id, seq]`, so a turn appends without rewriting the history. A
 * conversation keeps at most `conversations.maxItems` turn items (the oldest go first); its
 * `seed_items` are kept apart and always replayed first.
 */
import type { Database } from 'lmdb';
import { badRequest, payloadTooLarge, type Clock, type PluginStorage } from '@keel/plugin-sdk';
import type { RelayConfig } from '../config.js';
import type { ConversationRecord, ConversationStore } from '../contracts.js';
import { CONVERSATION_ID, newConversationId } from './storage-ids.js';

/** The record as stored: the wire record plus the range of its item sequence numbers. */
interface StoredConversation extends ConversationRecord {
  first_seq: number;
  next_seq: number;
}

export class RelayConversations implements ConversationStore {
  private readonly records: Database<StoredConversation, string>;
  private readonly items: Database<unknown, [string, number]>;
  private count = 0;

  constructor(private readonly storage: PluginStorage, private readonly limits: RelayConfig['conversations'], private readonly clock: Clock) {
    this.records = storage.openDB<StoredConversation, string>('conversations');
    this.items = storage.openDB<unknown, [string, number]>('conversation-items');
  }

  start(): void {
    this.count = this.records.getKeysCount();
  }

  stats(): { conversation_count: number } {
    return { conversation_count: this.count };
  }

  async create(metadata: Record<string, unknown>, seedItems: unknown[]): Promise<ConversationRecord> {
    this.checkMetadata(metadata);
    if (seedItems.length > this.limits.maxItems) throw badRequest(`A conversation starts with at most ${this.limits.maxItems} items (setting conversations.maxItems); this one has ${seedItems.length}.`, { code: 'too_many_items', field: 'body.items' });
    if (this.count >= this.limits.maxConversations) {
      throw payloadTooLarge(`The relay already stores ${this.limits.maxConversations} conversations (setting conversations.maxConversations); delete some with DELETE /v1/conversations/{id} first.`, { code: 'too_many_conversations' });
    }
    const now = this.now();
    const stored: StoredConversation = { id: newConversationId(), object: 'conversation', created_at: now, updated_at: now, latest_response_id: null, metadata, seed_items: seedItems, first_seq: 0, next_seq: 0 };
    await this.records.put(stored.id, stored);
    this.count++;
    return wire(stored);
  }

  async get(id: string): Promise<ConversationRecord | null> {
    const stored = this.stored(id);
    return stored ? wire(stored) : null;
  }

  async updateMetadata(id: string, metadata: Record<string, unknown>): Promise<ConversationRecord | null> {
    this.checkMetadata(metadata);
    return this.storage.transaction(() => {
      const stored = this.stored(id);
      if (!stored) return null;
      const next = { ...stored, metadata, updated_at: this.now() };
      void this.records.put(id, next);
      return wire(next);
    });
  }

  async delete(id: string): Promise<boolean> {
    const removed = await this.storage.transaction(() => {
      const stored = this.stored(id);
      if (!stored) return false;
      void this.records.remove(id);
      for (let seq = stored.first_seq; seq < stored.next_seq; seq++) void this.items.remove([id, seq]);
      return true;
    });
    if (removed) this.count--;
    return removed;
  }

  async history(id: string): Promise<unknown[]> {
    const stored = this.stored(id);
    if (!stored) return [];
    const turns = [...this.items.getRange({ start: [id, stored.first_seq], end: [id, stored.next_seq] }).map((e) => e.value)];
    return [...stored.seed_items, ...turns];
  }

  async appendTurn(id: string, input: unknown[], output: unknown[], responseId: string): Promise<void> {
    await this.storage.transaction(() => {
      const stored = this.stored(id);
      // Deleted while the turn ran: nothing to keep.
      if (!stored) return;
      let { first_seq: first, next_seq: next } = stored;
      for (const item of [...input, ...output]) void this.items.put([id, next++], item);
      while (next - first > this.limits.maxItems) void this.items.remove([id, first++]);
      void this.records.put(id, { ...stored, first_seq: first, next_seq: next, latest_response_id: responseId, updated_at: this.now() });
    });
  }

  private stored(id: string): StoredConversation | null {
    return CONVERSATION_ID.test(id) ? this.records.get(id) ?? null : null;
  }

  private checkMetadata(metadata: Record<string, unknown>): void {
    const bytes = Buffer.byteLength(JSON.stringify(metadata));
    if (bytes > this.limits.maxMetadataBytes) throw badRequest(`The metadata is ${bytes} bytes of JSON; at most ${this.limits.maxMetadataBytes} are kept (setting conversations.maxMetadataBytes).`, { code: 'metadata_too_large', field: 'body.metadata' });
  }

  private now(): number {
    return Math.floor(this.clock.nowMs() / 1000);
  }
}

function wire(stored: StoredConversation): ConversationRecord {
  const { first_seq: _first, next_seq: _next, ...record } = stored;
  return record;
}
