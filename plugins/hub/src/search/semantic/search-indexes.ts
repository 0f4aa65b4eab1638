/**
 * The search indexes as operators see them (reference §8.6 "Drift and rebuild"): the keyword index
 * of messages (files, store rows and seats are read live at search time and need none) and the
 * vectors of semantic search.
 *
 * Drift: `docs` counts what the keyword index holds, `expected_messages` the live `kind: message`
 * rows it should hold (Keel indexes only those), `message_drift` the difference; `vectors` compares
 * the stored vectors with every message and file now, for the model the setting resolves to.
 */
import type { ChannelFs } from '../../content/fs/channel-fs.js';
import { nowSeconds } from '../../ids.js';
import type { HubDb } from '../../store/hub-db.js';
import type { MessageIndex } from '../message-index.js';
import type { SemanticSearch } from './semantic-search.js';

export class SearchIndexes {
  constructor(private readonly db: HubDb, private readonly fs: ChannelFs, private readonly index: MessageIndex, readonly semantic: SemanticSearch) {}

  async drift(): Promise<Record<string, unknown>> {
    const indexed = this.index.indexedCount();
    const expected = this.liveMessages();
    const status = await this.semantic.status();
    const resolved = status.available ? await this.semantic.resolvedModel() : null;
    return {
      docs: { message: indexed, file: this.files() }, expected_messages: expected, message_drift: expected - indexed,
      vectors: { state: status.state, model: status.model, resolved_model: resolved, ...(status.available && status.model !== null ? this.semantic.vectorDrift(resolved) : {}) },
      computed_at: nowSeconds(),
    };
  }

  async rebuild(): Promise<Record<string, unknown>> {
    const messages = this.index.rebuild();
    const refilling = this.semantic.refill();
    return { rebuilt: true, docs: { message: messages, file: this.files() }, vectors: { rechecking: refilling, state: (await this.semantic.status()).state } };
  }

  private liveMessages(): number {
    let n = 0;
    for (const { value } of this.db.messages.getRange()) if (value.kind === 'message' && value.retracted_at === null) n++;
    return n;
  }

  private files(): number {
    let n = 0;
    for (const channel of this.db.channels.getKeys()) n += this.fs.list(channel).length;
    return n;
  }
}
