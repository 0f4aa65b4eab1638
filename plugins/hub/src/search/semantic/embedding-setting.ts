/**
 * The hub's durable embedding choice (reference §8.6 "Configuration"): the model semantic search
 * embeds with, as the inference plugin names it, or none. Kept in LMDB so a restart keeps it.
 */
import type { Database } from 'lmdb';
import { nowSeconds } from '../../ids.js';
import type { HubDb } from '../../store/hub-db.js';

export interface EmbeddingChoice {
  model: string | null;
  set_by: string | null;
  set_at: number | null;
}

const KEY = 'choice';

export class EmbeddingSetting {
  private readonly store: Database<EmbeddingChoice, string>;

  constructor(db: HubDb) {
    this.store = db.openDB<EmbeddingChoice, string>('embedding');
  }

  get(): EmbeddingChoice {
    return this.store.get(KEY) ?? { model: null, set_by: null, set_at: null };
  }

  async set(model: string | null, by: string): Promise<EmbeddingChoice> {
    const choice = { model, set_by: by, set_at: nowSeconds() };
    await this.store.put(KEY, choice);
    return choice;
  }
}
