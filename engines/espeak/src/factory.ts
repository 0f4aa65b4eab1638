/** The factory the voice manager holds for the engine id `espeak`. */
import type { EngineSettings, TtsEngine, TtsEngineFactory } from '@keel/voice';
import { EspeakEngine, type EspeakOptions } from './espeak-engine.js';
import { ENGINE_ID } from './voices.js';

/** `options` are the host's (the plugin's config); the manager's settings carry nothing espeak needs. */
export function espeakEngineFactory(options: EspeakOptions = {}): TtsEngineFactory {
  return {
    id: ENGINE_ID,
    create(_settings: EngineSettings): TtsEngine {
      return new EspeakEngine(options);
    },
  };
}
