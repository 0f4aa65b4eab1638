/** `@keel/engine-espeak`: offline text to speech with eSpeak NG (npm `espeak-ng`, WebAssembly) in worker threads. */
export { EspeakEngine, ESPEAK_INSTALL, ESPEAK_MODEL, espeakWorkerFile } from './espeak-engine.js';
export type { EspeakOptions } from './espeak-engine.js';
export { espeakEngineFactory } from './factory.js';
export { ENGINE_ID as ESPEAK_ENGINE_ID } from './voices.js';
