/**
 * The manager's cloned voices (reference B.2 "Cloning", B.11, B.12): the calls delegated to the store
 * and the cloner handed in as hooks, and which engine speaks a clone — a remote clone is spoken by the
 * remote it was made at (`voice: remote_voice_id`); a local clone needs a local cloning engine, which a
 * hook may supply; else the clone cannot be spoken here (501, with the reason).
 */
import { VoiceError, type EngineSettings, type TtsEngine, type TtsEngineFactory } from './contracts.js';
import type { CloneCallOptions, ClonedVoiceStoreHook, CloneRecordView, VoiceClonerHook, VoiceManagerHooks } from './manager-hooks.js';
import { echoInput } from './echo-input.js';

export class ManagerClones {
  private readonly engines = new Map<string, TtsEngine>();

  constructor(
    private readonly factories: ReadonlyMap<string, TtsEngineFactory>,
    private readonly settings: () => EngineSettings,
    private readonly hooks: () => VoiceManagerHooks,
    private readonly defaults: { engine?: string; model?: string },
  ) {}

  store(): ClonedVoiceStoreHook {
    const store = this.hooks().clonedVoices;
    if (!store) throw new VoiceError('No cloned-voice store is configured for this voice manager.', 501, 'cloning_unavailable');
    return store;
  }

  private cloner(): VoiceClonerHook {
    const cloner = this.hooks().cloner;
    if (!cloner) throw new VoiceError('No voice cloner is configured for this voice manager.', 501, 'cloning_unavailable');
    return cloner;
  }

  /** The record of a clone and the engine (and voice) that speaks it; 404 for an unknown id. */
  async speakerFor(voiceId: string, store?: ClonedVoiceStoreHook): Promise<{ record: CloneRecordView; engine: TtsEngine; profile?: string }> {
    const record = await (store ?? this.store()).find(voiceId);
    if (!record) throw new VoiceError(`Unknown cloned voice: ${echoInput(voiceId)}`, 404, 'unknown_voice');
    const supplied = this.hooks().cloneEngineFor?.(record);
    if (supplied) return { record, engine: supplied };
    const remoteId = field(record, 'remote_voice_id');
    if (!remoteId) {
      throw new VoiceError(`Cloned voice '${record.voice_id}' needs the local cloning engine '${record.engine}', which is not available in this environment.`, 501, 'cloning_unavailable');
    }
    const provider = field(record, 'remote_provider') === 'hosted' || record.engine === 'hosted' ? 'hosted' : 'compatible';
    const base = field(record, 'remote_base_url');
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
    return { record, engine, profile: remoteId };
  }

  cloneVoice(path: string, options: CloneCallOptions): Promise<string> {
    return this.cloner().cloneVoice(path, this.withDefaults(options));
  }

  cloneVoiceFromWavBytes(bytes: Uint8Array, options: CloneCallOptions & { meta?: Record<string, unknown> }): Promise<string> {
    if (!bytes || bytes.length === 0) throw new VoiceError('Missing audio file.', 400, 'missing_audio');
    return this.cloner().cloneVoiceFromBytes(bytes, { ...this.withDefaults(options), filename: 'ref_0.wav', contentType: 'audio/wav', ...(options.meta ? { meta: options.meta } : {}) });
  }

  async get(voiceId: string): Promise<CloneRecordView> {
    const record = await this.store().find(voiceId);
    if (!record) throw new VoiceError(`Unknown voice_id: ${echoInput(voiceId)}`, 404, 'unknown_voice');
    return record;
  }

  residentEngines(): { engine: string; model: string | null }[] {
    return this.hooks().residentCloneEngines?.() ?? [];
  }

  async unloadEngines(keepEngine?: string): Promise<number> {
    return (await this.hooks().unloadCloneEngines?.(keepEngine)) ?? 0;
  }

  async close(): Promise<void> {
    const engines = [...this.engines.values()];
    this.engines.clear();
    await Promise.allSettled([...engines.map((engine) => engine.close?.()), this.unloadEngines()]);
  }

  private withDefaults(options: CloneCallOptions): CloneCallOptions {
    return { ...options, engine: options.engine ?? this.defaults.engine ?? null, model: options.model ?? this.defaults.model ?? null };
  }
}

/** A remote field of the record: in `meta` (the store's layout), else at the top level. */
function field(record: CloneRecordView, name: string): string | undefined {
  const value = record.meta?.[name] ?? (record as unknown as Record<string, unknown>)[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
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
