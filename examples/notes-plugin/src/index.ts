/**
 * An example third-party Keel plugin, written only against `@keel/plugin-sdk`: per-account notes
 * in LMDB, word statistics in a worker pool, a config schema, and a token other plugins can use.
 */
import { core, definePlugin, token } from '@keel/plugin-sdk';
import { notesConfigSchema } from './config.js';
import { notesRoutes } from './notes-routes.js';
import { NotesStore } from './notes-store.js';
import { READ_KEY_HEADER, ReadKeys } from './read-keys.js';

export type { NotesConfig } from './config.js';
export type { Note, NotesStore } from './notes-store.js';
export type { ReadKeyHolder } from './read-keys.js';

/** Other plugins may depend on the notes store through this token. */
export const notesStoreToken = token<NotesStore>('notes.store');

export const notesPlugin = definePlugin({
  id: 'notes',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'Example plugin: notes per account, with word statistics in a worker pool',
  configSchema: notesConfigSchema,
  defaultPrefix: '/api/notes',
  deps: { log: core.logger, storage: core.storage, workers: core.workers, clock: core.clock },
  provides: notesStoreToken,
  // `keel notes count`: the module is imported only when the command runs.
  // Browsers may send the read-key header (CORS) to the route it opens.
  headers: [READ_KEY_HEADER],
  commands: {
    notes: { summary: 'Print how many notes the data directory holds.', usage: 'count', load: () => import('./notes-command.js') },
  },
  setup({ config, deps }) {
    const store = new NotesStore(deps.storage, deps.clock);
    const stats = deps.workers.create('stats', {
      filename: new URL('./word-stats-worker.js', import.meta.url),
      maxThreads: config.statsThreads,
    });
    deps.log.info('notes plugin ready', { greeting: config.greeting });
    return { routes: notesRoutes(store, stats, config, new ReadKeys(deps.storage, deps.clock)), exports: store };
  },
});

export default notesPlugin;
