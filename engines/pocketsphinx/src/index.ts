/** `@keel/engine-pocketsphinx`: offline speech to text with Debian's pocketsphinx, as a process; grammar and keyword modes. */
export { PocketsphinxEngine, POCKETSPHINX_MODEL, ENGINE_ID as POCKETSPHINX_ENGINE_ID } from './pocketsphinx-engine.js';
export type { PocketsphinxOptions } from './pocketsphinx-engine.js';
export { POCKETSPHINX_INSTALL } from './process.js';
export { pocketsphinxEngineFactory } from './factory.js';
export { parsePrompt, type RecognitionMode } from './prompt.js';
