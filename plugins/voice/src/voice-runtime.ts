/**
 * The voice service (`voice.service`): each call picks the manager of the settings it implies
 * (the configured ones, with the request's provider, model and language), inside the admission's
 * bounds (concurrency per process and account, the deadline), and maps the library's errors to
 * HTTP ones. Routes and node types both go through here, so both are bounded the same way.
 */
import { badRequest, payloadTooLarge } from '@keel/plugin-sdk';
import type { AudioFormat, CapabilitySupport, CompatibilityCatalog, CompatibleModel, PcmAudio } from '@keel/voice';

/** The capability data (reference B.8): `defaultCapabilityRegistry()` of `@keel/voice`. */
type CapabilityRegistry = Pick<VoiceService, 'getCapabilitySupport' | 'findCompatibleModels' | 'compatibilityCatalog'>;
import type { VoiceAdmission } from './admission.js';
import { contentTypeOf } from './audio-formats.js';
import type { VoiceLimits } from './config.js';
import type { ManagerCache } from './manager-cache.js';
import type { PortSpeech, VoiceManagerPort } from './manager-port.js';
import type { OwnerSettings } from './owner-settings.js';
import { parseSelector } from './selectors.js';
import { residentCall, residentList, type ResidencyHost, type ResidentEntry, type ResidentRequest } from './resident-models.js';
import { ttsStreamEvents, type TtsStreamEvent } from './tts-stream.js';
import { mapVoiceErrors } from './voice-errors.js';
import type {
  CatalogFilter, ClonedVoice, CloneInput, SpeechInput, SpeechOutput, TranscriptionInput, TranscriptionOutput, VoiceService,
} from './voice-service.js';

/** Canonical provider ids per kind (null: not a provider of that kind). */
export interface ProviderNames {
  tts(id: string): string | null;
  stt(id: string): string | null;
  cloning(id: string): string | null;
}

export class VoiceRuntime implements VoiceService {
  constructor(
    private readonly base: OwnerSettings,
    private readonly managers: ManagerCache<VoiceManagerPort>,
    private readonly admission: VoiceAdmission,
    private readonly limits: () => VoiceLimits,
    private readonly providers: ProviderNames,
    private readonly capabilities: CapabilityRegistry,
  ) {}

  getCapabilitySupport(kind: string, feature: string, provider: string, model: string | null = null, surface = 'default'): CapabilitySupport | null {
    return this.capabilities.getCapabilitySupport(kind, feature, provider, model, surface);
  }

  findCompatibleModels(kind: string, feature: string, surface = 'default', supportIn?: readonly string[]): CompatibleModel[] {
    return this.capabilities.findCompatibleModels(kind, feature, surface, supportIn);
  }

  compatibilityCatalog(): CompatibilityCatalog {
    return this.capabilities.compatibilityCatalog();
  }

  /** The configured settings. */
  get settings(): OwnerSettings {
    return this.base;
  }

  async speak(account: string, input: SpeechInput): Promise<SpeechOutput> {
    const { settings, model, request } = this.speechCall(input);
    const format: AudioFormat = input.format ?? 'wav';
    return this.admission.run(account, 'synthesis', input.signal, (signal) =>
      this.use(settings, async (manager) => {
        const { audio, metrics } = await manager.speak(account, { ...request, format, signal });
        return { bytes: audio.bytes, format: audio.format, contentType: audio.contentType || contentTypeOf(audio.format), provider: settings.ttsEngine, model, metrics };
      }),
    );
  }

  async speakStream(account: string, input: Omit<SpeechInput, 'format'>, onChunk: (chunk: PcmAudio) => Promise<void>): Promise<{ provider: string; model: string | null }> {
    const { settings, model, request } = this.speechCall(input);
    // The slot is held until the last segment is written (or the client goes away).
    await this.admission.run(account, 'synthesis', input.signal, (signal) => this.use(settings, (manager) => manager.speakChunks(account, { ...request, signal }, onChunk)));
    return { provider: settings.ttsEngine, model };
  }

  ttsStream(account: string, input: SpeechInput): AsyncGenerator<TtsStreamEvent> {
    return ttsStreamEvents(this, account, input);
  }

  /** The provider that speaks `input` (the configured one, or the one its model selects). */
  ttsProviderOf(input: Pick<SpeechInput, 'model' | 'provider'>): string {
    return parseSelector(input.model, input.provider, (id) => this.providers.tts(id)).provider ?? this.base.ttsEngine;
  }

  /** Checks a speech input and picks the manager's settings (only another provider needs another manager). */
  private speechCall(input: Omit<SpeechInput, 'format'>): { settings: OwnerSettings; model: string | null; request: Omit<PortSpeech, 'format' | 'signal'> } {
    const max = this.limits().maxInputChars;
    if (!input.text.trim()) throw badRequest('Missing input text.', { code: 'missing_input', field: 'input' });
    if (input.text.length > max) throw badRequest(`The input text is ${input.text.length} characters long; the limit is ${max} (setting limits.maxInputChars).`, { code: 'input_too_long', field: 'input' });
    const sel = parseSelector(input.model, input.provider, (id) => this.providers.tts(id));
    const settings = sel.provider && sel.provider !== this.base.ttsEngine ? { ...this.base, ttsEngine: sel.provider, ttsModel: null } : this.base;
    const request: Omit<PortSpeech, 'format' | 'signal'> = {
      text: input.text,
      ...(input.voice ? { voice: input.voice } : {}),
      ...(input.speed !== undefined ? { speed: input.speed } : {}),
      ...(input.instructions ? { instructions: input.instructions } : {}),
      ...(input.language ? { language: input.language } : {}),
      ...(sel.model ? { model: sel.model } : {}),
      ...(input.sanitizeSyntax === false ? { sanitizeSyntax: false } : {}),
    };
    return { settings, model: sel.model ?? settings.ttsModel, request };
  }

  async transcribe(account: string, input: TranscriptionInput): Promise<TranscriptionOutput> {
    this.checkAudio(input.audio.bytes);
    return this.admission.run(account, 'transcription', input.signal, (signal) => this.runTranscription(account, input, signal));
  }

  /**
   * `transcribe` for an upload: the slot is taken before the body is read, so at most
   * `maxConcurrentTranscriptions` uploads are held in memory at once, and a slow upload counts
   * against the deadline.
   */
  transcribeUpload(account: string, signal: AbortSignal, read: (signal: AbortSignal) => Promise<TranscriptionInput>): Promise<TranscriptionOutput> {
    return this.admission.run(account, 'transcription', signal, async (inner) => {
      const input = await read(inner);
      this.checkAudio(input.audio.bytes);
      return this.runTranscription(account, input, inner);
    });
  }

  async clone(account: string, input: CloneInput): Promise<ClonedVoice> {
    this.checkAudio(input.audio.bytes);
    return this.admission.run(account, 'transcription', input.signal, (signal) => this.runClone(account, input, signal));
  }

  /** `clone` for an upload (see `transcribeUpload`). */
  cloneUpload(account: string, signal: AbortSignal, read: (signal: AbortSignal) => Promise<CloneInput>): Promise<ClonedVoice> {
    return this.admission.run(account, 'transcription', signal, async (inner) => {
      const input = await read(inner);
      this.checkAudio(input.audio.bytes);
      return this.runClone(account, input, inner);
    });
  }

  private checkAudio(bytes: Buffer): void {
    if (bytes.length === 0) throw badRequest('Missing audio file.', { code: 'missing_file', field: 'file' });
    const maxBytes = this.limits().maxUploadBytes;
    if (bytes.length > maxBytes) throw payloadTooLarge(`The audio has ${bytes.length} bytes, more than the ${maxBytes} allowed (setting limits.maxUploadBytes).`, { code: 'file_too_large', field: 'file' });
  }

  private runTranscription(account: string, input: TranscriptionInput, signal: AbortSignal): Promise<TranscriptionOutput> {
    const sel = parseSelector(input.model, input.provider, (id) => this.providers.stt(id));
    const settings = sel.provider && sel.provider !== this.base.sttEngine ? { ...this.base, sttEngine: sel.provider, sttModel: null } : this.base;
    return this.use(settings, (manager) =>
      mapVoiceErrors(async () => {
        const { text, language } = await manager.transcribe(account, input.audio, {
          signal,
          ...(input.prompt ? { prompt: input.prompt } : {}),
          ...(input.language ? { language: input.language } : {}),
          ...(sel.model ? { model: sel.model } : {}),
        });
        return { text, language, provider: settings.sttEngine, model: sel.model ?? settings.sttModel };
      }),
    );
  }

  private runClone(account: string, input: CloneInput, signal: AbortSignal): Promise<ClonedVoice> {
    // The cloning provider is an option of the call, not another manager.
    const sel = parseSelector(input.model, input.provider, (id) => this.providers.cloning(id));
    return this.use(this.base, (manager) =>
      mapVoiceErrors(() =>
        manager.clone(account, input.audio, {
          signal,
          ...(input.name ? { name: input.name } : {}),
          ...(input.reference_text ? { reference_text: input.reference_text } : {}),
          ...(sel.provider ? { engine: sel.provider } : {}),
          ...(sel.model ? { model: sel.model } : {}),
        }),
      ),
    );
  }

  /** A manager call; building the manager (a missing key, say) fails with the library's error, mapped like the call's. */
  private use<T>(settings: OwnerSettings, fn: (manager: VoiceManagerPort) => Promise<T>): Promise<T> {
    return mapVoiceErrors(() => this.managers.use(settings, fn));
  }

  async validateClone(account: string, voiceId: string, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const started = performance.now();
    try {
      const audio = await this.speak(account, { text: 'Hello.', voice: voiceId, format: 'wav', ...(signal ? { signal } : {}) });
      return { ok: true, seconds: (performance.now() - started) / 1000, bytes: audio.bytes.length, metrics: audio.metrics };
    } catch (err) {
      await this.use(this.base, (manager) => manager.deleteClone(account, voiceId)).catch(() => undefined);
      throw badRequest(`Cloned voice was stored but failed validation and was removed. ${err instanceof Error ? err.message : String(err)}`, { code: 'clone_validation_failed', cause: err });
    }
  }

  loadResidentModel(request: ResidentRequest): Promise<ResidentEntry> {
    return residentCall(this.residency(), 'load', request);
  }

  unloadResidentModel(request: ResidentRequest): Promise<ResidentEntry> {
    return residentCall(this.residency(), 'unload', request);
  }

  listResidentModels(): Promise<ResidentEntry[]> {
    return Promise.resolve(residentList(this.residency()));
  }

  private residency(): ResidencyHost {
    return {
      base: this.base,
      canonical: (kind, id) => (kind === 'tts' ? this.providers.tts(id) : this.providers.stt(id)),
      use: (settings, fn) => this.use(settings, fn),
      open: () => this.managers.open(),
    };
  }

  voiceCatalog(account: string, filter: CatalogFilter): Promise<Record<string, unknown>> {
    return this.use(this.base, (manager) => mapVoiceErrors(() => manager.voiceCatalog(account, filter)));
  }

  availableProviders(account: string): Promise<Record<string, unknown>> {
    return this.use(this.base, (manager) => mapVoiceErrors(() => manager.availableProviders(account)));
  }

  async models(account: string, kind: 'tts' | 'stt', filter: CatalogFilter): Promise<Record<string, unknown>> {
    return this.voiceCatalog(account, kind === 'tts' ? filter : { ...(filter.provider ? { provider: filter.provider } : {}) });
  }
}
