/**
 * Local engines for the catalog's unit tests: plain objects that implement the contracts of
 * `@keel/voice` (a fake engine is fine inside a unit test). What they answer is set per test, so a
 * test can prove the catalog reports what the configured engines say rather than a fixed list.
 */
import type { AudioFormat, EngineAvailability, SpeechToTextEngine, TtsEngine, VoiceProfile } from '@keel/voice';

export function standinTts(id: string, options: { availability?: EngineAvailability; profiles?: VoiceProfile[]; models?: string[]; formats?: AudioFormat[]; defaultProfile?: string } = {}): TtsEngine & { calls: Record<string, number> } {
  const calls: Record<string, number> = { availability: 0, profiles: 0, models: 0 };
  return {
    id,
    kind: 'local',
    formats: options.formats ?? ['wav', 'pcm'],
    defaultProfile: options.defaultProfile ?? options.profiles?.[0]?.profile_id ?? 'default',
    calls,
    async availability() {
      calls.availability! += 1;
      return options.availability ?? { available: true };
    },
    async profiles() {
      calls.profiles! += 1;
      return options.profiles ?? [];
    },
    async models() {
      calls.models! += 1;
      return options.models ?? [];
    },
    languages: () => ['en'],
    async synthesize() {
      throw new Error('not used by catalog tests');
    },
  };
}

export function standinStt(id: string, options: { availability?: EngineAvailability; models?: string[]; formats?: string[] } = {}): SpeechToTextEngine {
  return {
    id,
    kind: 'local',
    formats: options.formats ?? ['wav'],
    async availability() {
      return options.availability ?? { available: true };
    },
    async models() {
      return options.models ?? [];
    },
    async transcribe() {
      throw new Error('not used by catalog tests');
    },
  };
}

export const profile = (engine: string, id: string, label = id): VoiceProfile => ({ engine_id: engine, profile_id: id, label, params: { voice: id } });
