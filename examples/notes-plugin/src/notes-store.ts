/** Notes in the plugin's own LMDB sub-database, keyed `[account, id]` so every account has its own plane. */
import { randomUUID } from 'node:crypto';
import { prefixRange, type Clock, type PluginStorage } from '@keel/plugin-sdk';

export interface Note {
  id: string;
  account: string;
  title: string;
  text: string;
  created_at: string;
}

export class NotesStore {
  private readonly db;

  constructor(storage: PluginStorage, private readonly clock: Clock) {
    this.db = storage.openDB<Note, [string, string]>('notes');
  }

  async add(account: string, title: string, text: string): Promise<Note> {
    const note: Note = { id: randomUUID(), account, title, text, created_at: this.clock.now().toISOString() };
    await this.db.put([account, note.id], note);
    return note;
  }

  get(account: string, id: string): Note | undefined {
    return this.db.get([account, id]);
  }

  list(account: string): Note[] {
    return [...this.db.getRange(prefixRange([account])).map(({ value }) => value)];
  }

  count(): number {
    return this.db.getCount();
  }

  async remove(account: string, id: string): Promise<boolean> {
    return this.db.remove([account, id]);
  }
}
