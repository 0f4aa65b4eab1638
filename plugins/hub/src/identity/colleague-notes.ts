/**
 * Colleague notes (reference §8.5 `GET /colleagues`, `PUT /colleagues/{seat}`): what one seat
 * privately notes about another. Notes are private: no route reads another seat's notes.
 */
import { prefixRange, HttpError, notFound, payloadTooLarge } from '@keel/plugin-sdk';
import type { Database } from 'lmdb';
import { nowSeconds } from '../ids.js';
import type { HubDb } from '../store/hub-db.js';

export interface ColleagueNote {
  observer: string;
  subject: string;
  note: string;
  updated_at: number;
}

export class ColleagueNotes {
  /** `[observer, subject]` → the note. */
  private readonly notes: Database<ColleagueNote, [string, string]>;

  constructor(private readonly db: HubDb, private readonly limits: { colleagueNotesMax: number; colleagueNoteMaxChars: number }) {
    this.notes = db.openDB('colleague-notes');
  }

  /** The observer's own notes, sorted by subject (at most the setting's count); with `subject`, that note or none. */
  of(observer: string, subject?: string): ColleagueNote[] {
    if (subject !== undefined) {
      const note = this.notes.get([observer, subject]);
      return note ? [note] : [];
    }
    return [...this.notes.getRange({ ...prefixRange([observer]), limit: this.limits.colleagueNotesMax })].map((e) => e.value);
  }

  async set(observer: string, subject: string, note: string): Promise<ColleagueNote> {
    const about = this.db.agents.get(subject);
    if (!about) throw notFound(`agent '${subject}' is not registered`);
    if (about.deleted) throw new HttpError(410, `'${subject}' was deleted — notes about a deleted identity cannot be created`);
    if ([...note].length > this.limits.colleagueNoteMaxChars) throw payloadTooLarge(`note exceeds ${this.limits.colleagueNoteMaxChars} characters`);
    const row: ColleagueNote = { observer, subject, note, updated_at: nowSeconds() };
    await this.notes.put([observer, subject], row);
    return row;
  }
}
