import { defineSchema, type Infer } from '@keel/plugin-sdk';

export const notesConfigSchema = defineSchema({
  type: 'object',
  additionalProperties: false,
  properties: {
    maxNoteLength: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 2000, description: 'Longest note text accepted, in characters.' },
    greeting: { type: 'string', default: 'Notes plugin at your service', description: 'Shown by `GET /` so a deployment can say hello in its own words.' },
    statsThreads: { type: 'integer', minimum: 1, maximum: 8, default: 1, description: 'Threads of the word-statistics pool.' },
  },
});

/** The config after validation: every setting has a default, so every one is present. */
export type NotesConfig = Infer<typeof notesConfigSchema>;
