/**
 * Builds the voice manager of one set of owner settings (`@keel/voice`'s VoiceManager) with its
 * hooks: the discovery catalog, the capability data, and the cloned voices of the account a call is
 * made for. The local engines are made once and shared by every manager (they hold worker threads
 * and processes; none reads the manager's settings), so a manager costs little and closing one
 * leaves them running; the plugin closes them at stop.
 *
 * Cloned voices belong to an account: each has its own store under its account folder. A call runs
 * with its account in an AsyncLocalStorage, which the catalog's clone listing reads; speech passes
 * the account's store to the manager per call, so no account speaks, lists or deletes another's clone.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import path from 'node:path';
import {
  ClonedVoiceStore, VoiceCatalog, VoiceCloner, VoiceManager, defaultCapabilityRegistry, isVoiceId, normalizeProvider,
  type ClonedVoiceRecord, type SpeechToTextEngine, type SpeechToTextEngineFactory, type TtsEngine, type TtsEngineFactory,
} from '@keel/voice';
import type { VoiceLimits } from './config.js';
import type { VoiceManagerPort } from './manager-port.js';
import type { OwnerSettings } from './owner-settings.js';
import type { ProviderNames } from './voice-runtime.js';
import type { ClonedVoice } from './voice-service.js';

type Env = Record<string, string | undefined>;

export interface LocalEngines {
  tts: readonly TtsEngine[];
  stt: readonly SpeechToTextEngine[];
}

export interface ManagerBuilderOptions {
  engines: LocalEngines;
  /** The folder of one account's cloned voices. */
  cloneDir(account: string): string;
  limits: () => VoiceLimits;
  env: Env;
}

/** The providers a request may name (reference B.7 selectors); anything else is a model. */
const REMOTE = ['hosted', 'compatible'];

/** A local engine handed to every manager: the manager's `cleanup` must not close the shared engine. */
function shared<E extends { close?(): Promise<void> }>(engine: E): E {
  return new Proxy(engine, {
    get(target, key) {
      if (key === 'close') return async () => undefined;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export class VoiceManagers {
  private readonly account = new AsyncLocalStorage<string>();
  private readonly stores = new Map<string, ClonedVoiceStore>();
  /** The capability data every manager checks requests against (reference B.8); the service answers from it too. */
  readonly capabilities = defaultCapabilityRegistry();
  private readonly ttsFactories: TtsEngineFactory[];
  private readonly sttFactories: SpeechToTextEngineFactory[];
  readonly canonical: ProviderNames;

  constructor(private readonly options: ManagerBuilderOptions) {
    this.ttsFactories = options.engines.tts.map((engine) => ({ id: engine.id, create: () => shared(engine) }));
    this.sttFactories = options.engines.stt.map((engine) => ({ id: engine.id, create: () => shared(engine) }));
    const known = (kind: 'tts' | 'stt' | 'cloning', ids: string[]) => (id: string) => {
      const canonical = normalizeProvider(kind, id);
      return canonical !== null && ids.includes(canonical) ? canonical : null;
    };
    this.canonical = {
      tts: known('tts', [...REMOTE, ...options.engines.tts.map((e) => e.id)]),
      stt: known('stt', [...REMOTE, ...options.engines.stt.map((e) => e.id)]),
      // Local cloning engines are named too, so asking for one answers why it cannot run.
      cloning: (id) => normalizeProvider('cloning', id),
    };
  }

  /** The store of `account`'s cloned voices (one instance per account: it serialises its own writes). */
  storeOf(account: string): ClonedVoiceStore {
    let store = this.stores.get(account);
    if (!store) {
      store = new ClonedVoiceStore(this.options.cloneDir(account), { maxReferenceBytes: this.options.limits().maxUploadBytes });
      this.stores.set(account, store);
    }
    return store;
  }

  /** Builds the manager of `settings`; a bad setting (an unknown engine id) throws the library's VoiceError. */
  build(settings: OwnerSettings): VoiceManagerPort {
    const { env } = this.options;
    const manager = new VoiceManager(
      {
        language: settings.language,
        ttsEngine: settings.ttsEngine,
        sttEngine: settings.sttEngine,
        ...(settings.ttsModel ? { ttsModel: settings.ttsModel } : {}),
        ...(settings.sttModel ? { sttModel: settings.sttModel } : {}),
        whisperModel: settings.whisperModel,
        debugMode: settings.debugMode,
        allowDownloads: settings.allowDownloads,
        clonedTtsStreaming: settings.clonedTtsStreaming,
        cloningEngine: settings.cloningEngine,
        ...(settings.cloningModel ? { cloningModel: settings.cloningModel } : {}),
        ttsDeliveryMode: settings.deliveryMode,
        ...(settings.remoteBaseUrl ? { remoteBaseUrl: settings.remoteBaseUrl } : {}),
        ...(settings.remoteApiKey ? { remoteApiKey: settings.remoteApiKey } : {}),
        remoteTimeoutS: settings.remoteTimeoutS,
        ...(settings.hostedApiKey ? { hostedApiKey: settings.hostedApiKey } : {}),
        ...(settings.hostedBaseUrl ? { hostedBaseUrl: settings.hostedBaseUrl } : {}),
        maxTextChars: this.options.limits().maxInputChars,
        maxAudioFileBytes: this.options.limits().maxUploadBytes,
        codebookPredictor: settings.codebookPredictor,
        codebookSampler: settings.codebookSampler,
        env,
      },
      { tts: this.ttsFactories, stt: this.sttFactories },
    );
    const clones = { list: async (): Promise<ClonedVoiceRecord[]> => (this.account.getStore() === undefined ? [] : this.storeOf(this.account.getStore()!).list()) };
    const catalog = new VoiceCatalog({
      settings: manager.engineSettings(),
      ttsEngines: this.options.engines.tts,
      sttEngines: this.options.engines.stt,
      active: () => manager.activeSelection(),
      clones,
      capabilities: this.capabilities,
      env,
    });
    manager.useHooks({ catalog, capabilities: this.capabilities });
    return new ManagerAdapter(manager, this, settings);
  }

  /** Runs `fn` as `account` (what the catalog's clone listing reads). */
  as<T>(account: string, fn: () => Promise<T>): Promise<T> {
    return this.account.run(account, fn);
  }

  cloner(account: string, manager: VoiceManager, settings: OwnerSettings): VoiceCloner {
    return new VoiceCloner({ store: this.storeOf(account), settings: manager.engineSettings(), env: this.options.env, defaultEngine: settings.cloningEngine });
  }
}

/** The port over one manager. */
class ManagerAdapter implements VoiceManagerPort {
  constructor(
    private readonly manager: VoiceManager,
    private readonly managers: VoiceManagers,
    private readonly settings: OwnerSettings,
  ) {}

  async speak(account: string, r: Parameters<VoiceManagerPort['speak']>[1]): ReturnType<VoiceManagerPort['speak']> {
    const store = this.managers.storeOf(account);
    // A cloned voice's id has the store's shape; anything else names a profile of the engine.
    const asClone = r.voice !== undefined && isVoiceId(r.voice);
    let metrics: Record<string, unknown> | null = null;
    const audio = await this.manager.speakToBytes(r.text, {
      format: r.format,
      // This call's own metrics: the manager's last-utterance record may be another account's call.
      onMetrics: (m) => (metrics = { ...m }),
      signal: r.signal,
      clonedVoices: store,
      ...(r.voice ? (asClone ? { voice: r.voice } : { profile: r.voice }) : {}),
      ...(r.speed !== undefined ? { speed: r.speed } : {}),
      ...(r.instructions ? { instructions: r.instructions } : {}),
      ...(r.language ? { language: r.language } : {}),
      ...(r.model ? { model: r.model } : {}),
      ...(r.sanitizeSyntax === false ? { sanitizeSyntax: false } : {}),
    });
    return { audio, metrics };
  }

  async speakChunks(account: string, r: Parameters<VoiceManagerPort['speakChunks']>[1], onChunk: Parameters<VoiceManagerPort['speakChunks']>[2]): Promise<void> {
    const asClone = r.voice !== undefined && isVoiceId(r.voice);
    const chunks = await this.manager.speakToAudioChunks(r.text, {
      signal: r.signal,
      clonedVoices: this.managers.storeOf(account),
      ...(r.voice ? (asClone ? { voice: r.voice } : { profile: r.voice }) : {}),
      ...(r.speed !== undefined ? { speed: r.speed } : {}),
      ...(r.instructions ? { instructions: r.instructions } : {}),
      ...(r.language ? { language: r.language } : {}),
      ...(r.model ? { model: r.model } : {}),
    });
    for await (const chunk of chunks) await onChunk({ samples: chunk.samples, sampleRate: chunk.sampleRate });
  }

  async transcribe(_account: string, audio: Parameters<VoiceManagerPort['transcribe']>[1], r: Parameters<VoiceManagerPort['transcribe']>[2]): ReturnType<VoiceManagerPort['transcribe']> {
    const text = await this.manager.transcribeFromBytes(audio.bytes, {
      signal: r.signal,
      ...(audio.filename ? { filename: audio.filename } : {}),
      ...(audio.contentType ? { contentType: audio.contentType } : {}),
      ...(r.language ? { language: r.language } : {}),
      ...(r.prompt ? { prompt: r.prompt } : {}),
      ...(r.model ? { model: r.model } : {}),
    });
    return { text, language: r.language ?? this.manager.getLanguage() };
  }

  async clone(account: string, audio: Parameters<VoiceManagerPort['clone']>[1], r: Parameters<VoiceManagerPort['clone']>[2]): Promise<ClonedVoice> {
    const cloner = this.managers.cloner(account, this.manager, this.settings);
    const voiceId = await cloner.cloneVoiceFromBytes(audio.bytes, {
      filename: path.basename(audio.filename || 'reference.wav'),
      ...(audio.contentType ? { contentType: audio.contentType } : {}),
      ...(r.name ? { name: r.name } : {}),
      ...(r.reference_text ? { referenceText: r.reference_text } : {}),
      ...(r.engine ? { engine: r.engine } : {}),
      ...(r.model ? { model: r.model } : {}),
    });
    const record = await this.managers.storeOf(account).get(voiceId);
    return { ...record };
  }

  async deleteClone(account: string, voiceId: string): Promise<void> {
    await this.managers.storeOf(account).delete(voiceId);
  }

  voiceCatalog(account: string, filter: { provider?: string; model?: string }): Promise<Record<string, unknown>> {
    return this.managers.as(account, async () => (await this.manager.voiceCatalog({ provider: filter.provider ?? null, model: filter.model ?? null })) as Record<string, unknown>);
  }

  availableProviders(account: string): Promise<Record<string, unknown>> {
    return this.managers.as(account, async () => (await this.manager.availableProviders()) as Record<string, unknown>);
  }

  async preload(kind: 'tts' | 'stt'): Promise<Record<string, unknown>> {
    return { ...(kind === 'tts' ? await this.manager.preloadTtsEngine() : await this.manager.preloadSttEngine()) };
  }

  async unload(kind: 'tts' | 'stt'): Promise<Record<string, unknown>> {
    return { ...(kind === 'tts' ? await this.manager.unloadTtsEngine() : await this.manager.unloadSttEngine()) };
  }

  residentComponents(): Array<Record<string, unknown>> {
    return this.manager.listResidentComponents().map((c) => ({ ...c }));
  }

  async close(): Promise<void> {
    await this.manager.cleanup();
  }
}
