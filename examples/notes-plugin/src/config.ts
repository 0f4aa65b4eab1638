import { schema } from '@keel/plugin-sdk';

export interface NotesConfig {
  /** Longest note text accepted, in characters. */
  maxNoteLength: number;
  /** Shown by `GET /` so a deployment can say hello in its own words. */
  greeting: string;
  /** Threads of the word-statistics pool. */
  statsThreads: number;
}

export const notesConfigSchema = schema<NotesConfig>({
  type: 'object',
  additionalProperties: false,
  properties: {
    maxNoteLength: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 2000 },
    greeting: { type: 'string', default: 'Notes plugin at your service' },
    statsThreads: { type: 'integer', minimum: 1, maximum: 8, default: 1 },
  },
});
