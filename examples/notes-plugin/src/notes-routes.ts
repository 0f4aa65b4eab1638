/** The notes routes, declared with schemas: validated by the host and listed in its OpenAPI document. */
import { badRequest, defineSchema, notFound, reply, route, type Principal, type WorkerPool } from '@keel/plugin-sdk';
import type { NotesConfig } from './config.js';
import type { NotesStore } from './notes-store.js';
import type { ReadKeys } from './read-keys.js';
import type { WordStats } from './word-stats-worker.js';

const noteSchema = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['id', 'account', 'title', 'text', 'created_at'],
  properties: { id: { type: 'string' }, account: { type: 'string' }, title: { type: 'string' }, text: { type: 'string' }, created_at: { type: 'string' } },
});
const idParams = defineSchema({ type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } });
const newNote = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['title', 'text'],
  properties: { title: { type: 'string', minLength: 1, maxLength: 200 }, text: { type: 'string' } },
});

export function notesRoutes(store: NotesStore, stats: WorkerPool, config: NotesConfig, readKeys: ReadKeys) {
  const readKey = readKeys.authenticator();
  const owned = (principal: Principal, id: string) => {
    const note = store.get(principal.account, id);
    // Another account's note is indistinguishable from a missing one.
    if (!note) throw notFound(`Note ${id} not found.`);
    return note;
  };
  return [
    route({
      method: 'GET',
      path: '/',
      auth: 'public',
      summary: 'Greeting and how many notes are stored',
      handler: () => ({ greeting: config.greeting, notes: store.count() }),
    }),
    route({
      method: 'POST',
      path: '/items',
      summary: 'Add a note',
      body: newNote,
      responses: { 201: { schema: noteSchema } },
      handler: async ({ body, principal }) => {
        if ([...body.text].length > config.maxNoteLength) {
          throw badRequest(`text is longer than ${config.maxNoteLength} characters (maxNoteLength).`, { code: 'too_long', field: 'body.text' });
        }
        return reply(201, await store.add(principal.account, body.title, body.text));
      },
    }),
    route({
      method: 'GET',
      path: '/items',
      summary: "The caller's notes",
      handler: ({ principal }) => ({ items: store.list(principal.account) }),
    }),
    route({
      method: 'GET',
      path: '/items/:id',
      summary: 'One note',
      params: idParams,
      responses: { 200: { schema: noteSchema } },
      handler: ({ params, principal }) => owned(principal, params.id),
    }),
    route({
      method: 'GET',
      path: '/items/:id/stats',
      summary: 'Word statistics of a note, computed in a worker thread',
      params: idParams,
      handler: async ({ params, principal, signal }) => {
        const note = owned(principal, params.id);
        return (await stats.run(note.text, { signal })) as WordStats;
      },
    }),
    route({
      method: 'POST',
      path: '/read-keys',
      summary: 'Mint a read key for your notes (shown once); send it as X-Notes-Key to GET /shared/items',
      handler: async ({ principal }) => reply(201, await readKeys.mint(principal.account)),
    }),
    route({
      method: 'GET',
      path: '/shared/items',
      auth: readKey,
      summary: "The notes of a read key's account (the plugin's own key, not a Keel token)",
      handler: ({ principal }) => ({ account: principal.account, items: store.list(principal.account) }),
    }),
    route({
      method: 'DELETE',
      path: '/items/:id',
      summary: 'Delete a note',
      params: idParams,
      handler: async ({ params, principal }) => {
        owned(principal, params.id);
        await store.remove(principal.account, params.id);
        return reply(204);
      },
    }),
  ];
}
