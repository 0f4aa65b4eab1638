/**
 * Which engine speaks a cloned voice (reference B.2, B.12): a remote clone is spoken by the remote it
 * was made at (`voice: remote_voice_id`); a local clone needs its local cloning engine, which the store
 * may supply (`engineFor`); else the clone cannot be spoken here (501, with the reason).
 */
import { VoiceError, type EngineSettings, type TtsEngine, type TtsEngineFactory } from './contracts.js';
import type { ClonedVoiceRecord, ClonedVoices } from './manager-hooks.js';

export class CloneSpeech {
  private readonly engines = new Map<string, TtsEngine>();

  constructor(
    private readonly factories: ReadonlyMap<string, TtsEngineFactory>,
    private readonly settings: () => EngineSettings,
  ) {}

  /** The engine and the voice to request for a clone. */
  engineFor(record: ClonedVoiceRecord, store: ClonedVoices): { engine: TtsEngine; profile?: string } {
    const supplied = store.engineFor?.(record);
    if (supplied) return { engine: supplied };
    if (typeof record.remote_voice_id === 'string' && record.remote_voice_id !== '') {
      const provider = record.remote_provider === 'hosted' ? 'hosted' : 'compatible';
      const base = typeof record.remote_base_url === 'string' && record.remote_base_url !== '' ? record.remote_base_url : undefined;
      const key = `${provider} ${base ?? ''}`;
      let engine = this.engines.get(key);
      if (!engine) {
        const settings = this.settings();
        const factory = this.factories.get(provider);
        if (!factory) throw new VoiceError(`Cloned voice '${record.voice_id}' needs the ${provider} engine, which is not registered.`, 501, 'cloning_unavailable');
        // The configured key goes only to the configured remote: a clone stored with another base URL
        // is spoken there without it.
        const sameRemote = provider === 'hosted' || !base || sameUrl(base, settings.remoteBaseUrl);
        engine =
          provider === 'hosted'
            ? factory.create(settings)
            : factory.create({ ...settings, remoteBaseUrl: base ?? settings.remoteBaseUrl, remoteApiKey: sameRemote ? settings.remoteApiKey : undefined, env: sameRemote ? settings.env : withoutKey(settings.env) });
        this.engines.set(key, engine);
      }
      return { engine, profile: record.remote_voice_id };
    }
    throw new VoiceError(
      `Cloned voice '${record.voice_id}' needs the local cloning engine '${record.engine}', which is not available in this environment.`,
      501,
      'cloning_unavailable',
    );
  }

  async close(): Promise<void> {
    const engines = [...this.engines.values()];
    this.engines.clear();
    await Promise.allSettled(engines.map((engine) => engine.close?.()));
  }
}

function sameUrl(a: string, b: string | undefined): boolean {
  if (!b) return false;
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

function withoutKey(env: Record<string, string | undefined> | undefined): Record<string, string | undefined> {
  const copy = { ...(env ?? process.env) };
  delete copy.HOSTED_API_KEY;
  return copy;
}
