/** The factory the voice manager holds for the engine id `pocketsphinx`. */
import type { EngineSettings, SpeechToTextEngine, SpeechToTextEngineFactory } from '@keel/voice';
import { ENGINE_ID, PocketsphinxEngine, type PocketsphinxOptions } from './pocketsphinx-engine.js';

/** `options` are the host's (the plugin's config); the manager's settings carry nothing pocketsphinx needs. */
export function pocketsphinxEngineFactory(options: PocketsphinxOptions = {}): SpeechToTextEngineFactory {
  return {
    id: ENGINE_ID,
    create(_settings: EngineSettings): SpeechToTextEngine {
      return new PocketsphinxEngine(options);
    },
  };
}
