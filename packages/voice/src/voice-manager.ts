/**
 * The voice manager (reference B.1–B.6, B.9, B.10; seed §B.4): text to speech as bytes, files, chunks
 * and a text-stream bridge; speech to text from files and bytes; profiles, speed, quality, language,
 * delivery and voice modes; residency; last-utterance metrics. Engines come from factories the caller
 * hands over (the library never imports a local engine package); `hosted` and `compatible` are built in.
 * Playback and capture need a sound device: here they answer VoiceError 501 `no_audio_device`.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import {
  VoiceError,
  type AudioFormat,
  type EncodedAudio,
  type EngineSettings,
  type QualityPreset,
  type SpeechToTextEngine,
  type SpeechToTextEngineFactory,
  type TtsEngine,
  type TtsEngineFactory,
  type UtteranceMetrics,
  type VoiceProfile,
} from './contracts.js';
import { normaliseAudioFormat } from './audio-encoding.js';
import { ManagerClones } from './clone-speech.js';
import { DEFAULT_CODEBOOK, mergeCodebook, type CodebookSettings } from './codebook-settings.js';
import { deliveryModes, normaliseDeliveryMode, type DeliveryMode, type DeliveryModes } from './delivery-mode.js';
import { resolveEngineId } from './engine-resolution.js';
import { LANGUAGE_NAMES, languageName, normaliseLanguage } from './languages.js';
import type { ActiveSelectionView, CloneCallOptions, CloneRecordView, VoiceCatalogHook, VoiceManagerHooks } from './manager-hooks.js';
import { noAudioDevice } from './no-audio-device.js';
import { DEFAULT_QUALITY_PRESET, normaliseQualityPreset } from './quality-preset.js';
import { compatibleSttFactory, hostedSttFactory } from './remote/remote-stt-engine.js';
import { compatibleTtsFactory, hostedTtsFactory } from './remote/remote-tts-engine.js';
import { remoteTimeoutS } from './remote/remote-settings.js';
import { preloadEngine, unloadEngine, type PreloadResult, type ResidentComponent, type UnloadResult } from './residency.js';
import { prepareSpeech, stripEngine, supportsControl, type PreparedSpeech, type SpeakOptions, type SpeechContext, type SpeechControl } from './speech-request.js';
import type { TtsTextStream, AudioChunk } from './tts-text-stream.js';
import { openSegmentStream, synthesizeBytes } from './speech-synthesis.js';
import { VoiceModeMachine, type VoiceMode } from './voice-mode.js';
import type { SpeakToBytesOptions, TextStreamOptions, TranscribeOptions, VoiceEngineFactories, VoiceManagerOptions } from './manager-options.js';

const DEFAULT_MAX_TEXT_CHARS = 100_000;
const DEFAULT_MAX_AUDIO_FILE_BYTES = 64 * 1024 * 1024;
const WHISPER_SIZES = ['tiny', 'base', 'small', 'medium', 'large-v2', 'large-v3'];

export class VoiceManager {
  private readonly ttsFactories = new Map<string, TtsEngineFactory>();
  private readonly sttFactories = new Map<string, SpeechToTextEngineFactory>();
  private tts: TtsEngine | null = null;
  private ttsId: string;
  private stt: SpeechToTextEngine | null = null;
  private readonly sttId: string;
  private ttsModel: string | undefined;
  private language: string;
  private speed = 1;
  private quality: QualityPreset | null = null;
  private clonedQuality: QualityPreset | null = null;
  private activeProfile = '';
  private deliveryOverride: DeliveryMode | null;
  private clonedTtsStreaming: boolean;
  private whisperModel: string;
  private lastMetrics: UtteranceMetrics | null = null;
  private codebook: CodebookSettings;
  private activeStream: TtsTextStream | undefined;
  private readonly available = new WeakSet<object>();
  private readonly clones: ManagerClones;
  /** Modes and playback as a state machine (B.5); there is no recognizer without a sound device. */
  readonly voiceModes = new VoiceModeMachine();

  constructor(
    readonly options: VoiceManagerOptions = {},
    factories: VoiceEngineFactories = {},
    private readonly hooks: VoiceManagerHooks = {},
  ) {
    for (const factory of [hostedTtsFactory, compatibleTtsFactory, ...(factories.tts ?? [])]) this.ttsFactories.set(factory.id.toLowerCase(), factory);
    for (const factory of [hostedSttFactory, compatibleSttFactory, ...(factories.stt ?? [])]) this.sttFactories.set(factory.id.toLowerCase(), factory);
    this.language = normaliseLanguage(options.language ?? 'en') || 'en';
    this.ttsModel = options.ttsModel;
    this.clonedTtsStreaming = options.clonedTtsStreaming ?? true;
    this.deliveryOverride = options.ttsDeliveryMode === undefined || options.ttsDeliveryMode === null ? null : normaliseDeliveryMode(options.ttsDeliveryMode);
    this.whisperModel = normaliseWhisper(options.whisperModel ?? 'base') ?? 'base';
    // A typo fails before any adapter is built (B.1 [newer]).
    this.codebook = mergeCodebook(DEFAULT_CODEBOOK, { predictor: options.codebookPredictor, sampler: options.codebookSampler });
    this.sttId = resolveEngineId('stt', options.sttEngine, this.sttFactories.keys());
    this.clones = new ManagerClones(this.ttsFactories, () => this.engineSettings(), () => this.hooks, { engine: options.cloningEngine, model: options.cloningModel });
    // The TTS adapter is built now and its errors propagate: no silent fallback (B.1).
    this.ttsId = resolveEngineId('tts', options.ttsEngine, this.ttsFactories.keys());
    this.tts = this.buildTts(this.ttsId);
    this.afterEngineChange();
  }

  // ---- engines ------------------------------------------------------------------------------------

  /** The settings every factory receives. */
  engineSettings(): EngineSettings {
    const o = this.options;
    return {
      language: this.language,
      model: this.ttsModel,
      ttsModel: this.ttsModel,
      sttModel: o.sttModel,
      remoteBaseUrl: o.remoteBaseUrl,
      remoteApiKey: o.remoteApiKey,
      // Resolved here (option, else the env, else 60) so every consumer of the settings agrees.
      remoteTimeoutS: remoteTimeoutS(o.remoteTimeoutS, o.env ?? process.env),
      hostedApiKey: o.hostedApiKey,
      hostedBaseUrl: o.hostedBaseUrl,
      allowDownloads: o.allowDownloads ?? true,
      env: o.env,
      discoveryTimeoutS: o.discoveryTimeoutS,
      discoveryTtlS: o.discoveryTtlS,
      remoteMaxAudioBytes: o.remoteMaxAudioBytes,
      remoteMaxJsonBytes: o.remoteMaxJsonBytes,
    };
  }

  /** The resolved TTS engine id (`none` when no adapter is built). */
  get ttsEngineId(): string {
    return this.ttsId;
  }

  /** The resolved STT engine id. */
  get sttEngineId(): string {
    return this.sttId;
  }

  /** The active TTS adapter, or null (`none`). For the catalog; speak through the manager. */
  get ttsEngine(): TtsEngine | null {
    return this.tts;
  }

  get ttsFactoryIds(): string[] {
    return [...this.ttsFactories.keys()];
  }

  get sttFactoryIds(): string[] {
    return [...this.sttFactories.keys()];
  }

  getTtsModel(): string | null {
    return this.ttsModel ?? null;
  }

  /**
   * Switches the TTS engine (B.2): stops speech, builds the new adapter (errors propagate and leave
   * the old one in place), moves to a supported language, resets to the engine's default profile, and
   * answers the resolved id.
   */
  async setTtsEngine(engine: string, ttsModel?: string): Promise<string> {
    const id = resolveEngineId('tts', engine, this.ttsFactories.keys());
    const previousModel = this.ttsModel;
    if (ttsModel !== undefined) this.ttsModel = ttsModel;
    let next: TtsEngine | null;
    try {
      next = this.buildTts(id);
    } catch (error) {
      this.ttsModel = previousModel;
      throw error;
    }
    this.stopSpeaking();
    const old = this.tts;
    this.tts = next;
    this.ttsId = id;
    this.afterEngineChange();
    if (old && old !== next) await old.close?.();
    return id;
  }

  private buildTts(id: string): TtsEngine | null {
    if (id === 'none') return null;
    const factory = this.ttsFactories.get(id)!;
    return factory.create(this.engineSettings());
  }

  private afterEngineChange(): void {
    const supported = this.tts?.languages() ?? [];
    if (supported.length > 0 && !supported.includes(this.language)) this.language = supported.includes('en') ? 'en' : supported[0]!;
    this.activeProfile = this.tts?.defaultProfile ?? '';
    if (this.quality && !this.qualitySupported()) this.quality = null;
  }

  private requireTts(): TtsEngine {
    if (!this.tts) throw new VoiceError('No TTS engine available: the manager was built with tts_engine none.', 501, 'no_tts_engine');
    return this.tts;
  }

  /** Raises the adapter's unavailable reason (B.2); a good answer is remembered. */
  private async ensureAvailable(engine: TtsEngine | SpeechToTextEngine, kind: 'TTS' | 'STT'): Promise<void> {
    if (this.available.has(engine)) return;
    const availability = await engine.availability();
    if (!availability.available) {
      throw new VoiceError(`${kind} engine '${engine.id}' is not available: ${availability.reason}`, 501, availability.code, availability.install);
    }
    this.available.add(engine);
  }

  private sttEngine(): SpeechToTextEngine {
    if (this.stt) return this.stt;
    if (this.sttId === 'none') {
      throw new VoiceError('No STT engine is available.\nSet stt_engine to hosted, compatible or an installed local engine.', 501, 'no_stt_engine');
    }
    this.stt = this.sttFactories.get(this.sttId)!.create(this.engineSettings());
    return this.stt;
  }

  // ---- speech ------------------------------------------------------------------------------------

  /** Synthesises `text` to encoded audio (B.2 `speak_to_bytes`); records buffered metrics. */
  async speakToBytes(text: string, options: SpeakToBytesOptions = {}): Promise<EncodedAudio> {
    const format = normaliseAudioFormat(options.format ?? 'wav');
    const { audio, metrics } = await synthesizeBytes(await this.prepare(text, options, 'bytes'), format);
    this.lastMetrics = metrics;
    options.onMetrics?.(metrics);
    return audio;
  }

  /** Writes speech to `path`; the format comes from the option, else the file suffix, else wav. */
  async speakToFile(text: string, path: string, options: SpeakToBytesOptions = {}): Promise<string> {
    const suffix = extname(path).slice(1).toLowerCase();
    const audio = await this.speakToBytes(text, { ...options, format: options.format ?? (suffix !== '' ? suffix : 'wav') });
    await writeFile(path, audio.bytes);
    return path;
  }

  /**
   * Speech segment by segment (B.2 `speak_to_audio_chunks`): the first segment ≤ 60 characters, later
   * ones ≤ min(engine limit, 240) (clones 120). Validation happens before this resolves; iterate the
   * answer for `{samples, sampleRate, index, text}`; leaving the loop early cancels the rest.
   */
  async speakToAudioChunks(text: string, options: SpeakOptions = {}): Promise<AsyncIterable<AudioChunk>> {
    refuseCloneStreamInstructions(options);
    const prepared = await this.prepare(text, options, 'bytes');
    const stream = openSegmentStream(prepared, { sanitize: false, signal: options.signal, onMetrics: (metrics) => (this.lastMetrics = metrics) });
    stream.push(prepared.text);
    stream.close();
    return stream;
  }

  /**
   * The text-stream bridge (B.2 `open_tts_text_stream`): push deltas, close, iterate the audio (or take
   * it in `onAudio`), cancel, join. Opening one cancels the previous stream.
   */
  async openTtsTextStream(options: TextStreamOptions = {}): Promise<TtsTextStream> {
    refuseCloneStreamInstructions(options);
    // Validate everything but the text now: errors belong to the opener, not the first push.
    const prepared = await this.prepare('(validation)', { ...options, sanitizeSyntax: false }, 'bytes');
    this.stopSpeaking();
    const stream = openSegmentStream(prepared, {
      sanitize: options.sanitizeSyntax !== false,
      maxChars: options.maxChars,
      maxTotalChars: this.options.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS,
      minChars: options.minChars,
      onAudio: options.onAudio,
      onMetrics: (metrics, finished) => {
        if (this.activeStream === finished) this.activeStream = undefined;
        this.lastMetrics = metrics;
      },
    });
    this.activeStream = stream;
    return stream;
  }

  /** Validates and normalises one speech call (speech-request.ts). */
  private prepare(text: string, options: SpeakOptions, surface: 'bytes' | 'playback'): Promise<PreparedSpeech> {
    const context: SpeechContext = {
      maxTextChars: this.options.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS,
      speed: this.speed,
      language: this.language,
      ttsModel: this.ttsModel,
      ttsId: this.ttsId,
      activeProfile: this.activeProfile,
      quality: this.quality,
      clonedQuality: this.clonedQuality,
      capabilities: this.hooks.capabilities,
      baseEngine: () => this.requireTts(),
      cloneSpeaker: (voiceId, store) => this.clones.speakerFor(voiceId, store),
      ensureAvailable: (engine) => this.ensureAvailable(engine, 'TTS'),
      profiles: () => this.getProfiles('tts'),
    };
    return prepareSpeech(context, text, options, surface);
  }

  private supports(feature: SpeechControl, surface: string): boolean {
    return !!this.tts && supportsControl(this.hooks.capabilities, this.tts, this.ttsId, this.ttsModel, feature, surface);
  }

  // ---- playback (no sound device here) ------------------------------------------------------------

  /** Plays speech locally: needs a sound device (501 `no_audio_device`). */
  speak(_text?: string): never {
    throw noAudioDevice('speak');
  }

  pauseSpeaking(): never {
    throw noAudioDevice('pauseSpeaking');
  }

  resumeSpeaking(): never {
    throw noAudioDevice('resumeSpeaking');
  }

  /** Cancels the open text stream (and playback, were there any); true when something was stopped. */
  stopSpeaking(): boolean {
    const stream = this.activeStream;
    this.activeStream = undefined;
    const stoppedPlayback = this.voiceModes.send({ type: 'stop' });
    if (stream && !stream.isFinished) {
      stream.cancel();
      return true;
    }
    return stoppedPlayback;
  }

  isSpeaking(): boolean {
    return this.voiceModes.isSpeaking;
  }

  isPaused(): boolean {
    return this.voiceModes.isPaused;
  }

  // ---- listening (no sound device here) -----------------------------------------------------------

  listen(_onTranscription?: (text: string) => void): never {
    throw noAudioDevice('listen');
  }

  /** False: there is no recognizer (B.2). */
  stopListening(): boolean {
    return false;
  }

  pauseListening(): boolean {
    return false;
  }

  resumeListening(): boolean {
    return false;
  }

  isListening(): boolean {
    return this.voiceModes.listening;
  }

  changeVadAggressiveness(_level: number): never {
    throw noAudioDevice('changeVadAggressiveness');
  }

  /** Echo cancellation feeds playback into the recognizer: enabling it needs a sound device. */
  enableAec(enabled = true, _streamDelayMs = 0): boolean {
    if (enabled) throw noAudioDevice('enableAec');
    return true;
  }

  /** `full|wait|stop|ptt` (B.5); false for anything else. */
  setVoiceMode(mode: string): boolean {
    return typeof mode === 'string' && this.voiceModes.setMode(mode);
  }

  getVoiceMode(): VoiceMode {
    return this.voiceModes.mode;
  }

  // ---- settings -----------------------------------------------------------------------------------

  /** 0.5 ≤ x ≤ 2.0, else false; false (unchanged) when x ≠ 1 and speed is unsupported on playback. */
  setSpeed(speed: number): boolean {
    if (typeof speed !== 'number' || !Number.isFinite(speed) || speed < 0.5 || speed > 2) return false;
    if (speed !== 1 && this.tts && !this.supports('speed', 'playback')) return false;
    this.speed = speed;
    return true;
  }

  getSpeed(): number {
    return this.speed;
  }

  /** Normalises the preset (B.4); false when no adapter, an invalid preset, or the engine has no presets. */
  setTtsQualityPreset(preset: string): boolean {
    if (!this.tts) return false;
    let normalised: QualityPreset;
    try {
      normalised = normaliseQualityPreset(preset);
    } catch {
      return false;
    }
    if (!this.qualitySupported()) return false;
    this.quality = normalised;
    return true;
  }

  /** The preset in force (`standard` by default), or null when the engine has no presets. */
  getTtsQualityPreset(): QualityPreset | null {
    if (!this.tts || !this.qualitySupported()) return null;
    return this.quality ?? DEFAULT_QUALITY_PRESET;
  }

  private qualitySupported(): boolean {
    if (!this.tts) return false;
    return this.supports('quality_preset', 'bytes') || this.supports('quality_preset', 'playback');
  }

  /** `null` clears the override; otherwise normalised (B.5; an invalid mode raises 400). */
  setTtsDeliveryMode(mode: string | boolean | null): boolean {
    if (mode === null) {
      this.deliveryOverride = null;
      return true;
    }
    this.deliveryOverride = normaliseDeliveryMode(mode);
    this.clonedTtsStreaming = this.deliveryOverride === 'streamed';
    return true;
  }

  getTtsDeliveryModes(): DeliveryModes {
    return deliveryModes(this.deliveryOverride, this.clonedTtsStreaming);
  }

  /** `base` when base and clone agree, else `mixed`. */
  getTtsDeliveryMode(): DeliveryMode | 'mixed' {
    const modes = this.getTtsDeliveryModes();
    return modes.base === modes.clone ? modes.base : 'mixed';
  }

  /** Empty → false; an engine with a language list refuses others; others pass any code through. */
  setLanguage(language: string): boolean {
    if (typeof language !== 'string') return false;
    const code = normaliseLanguage(language);
    if (code === '') return false;
    const supported = this.tts?.languages() ?? [];
    if (supported.length > 0 && !supported.includes(code)) return false;
    this.language = code;
    return true;
  }

  getLanguage(): string {
    return this.language;
  }

  getLanguageName(code?: string): string {
    return languageName(code ?? this.language);
  }

  /** The adapter's list (empty for engines that pass any language through), else the table's codes. */
  getSupportedLanguages(): string[] {
    return this.tts ? [...this.tts.languages()] : Object.keys(LANGUAGE_NAMES);
  }

  /** Back-compat (B.2): in effect `setLanguage`. */
  setVoice(language: string, _voiceId?: string): boolean {
    return this.setLanguage(language);
  }

  /** The active engine's profiles and models (discovery failures give empty lists). */
  async listAvailableModels(language?: string): Promise<{ engine: string; language: string; models: string[]; profiles: VoiceProfile[] }> {
    const models = this.tts ? await this.tts.models().catch(() => [] as string[]) : [];
    return { engine: this.ttsId, language: language ? normaliseLanguage(language) : this.language, models, profiles: await this.getProfiles('tts') };
  }

  listVoices(language?: string): ReturnType<VoiceManager['listAvailableModels']> {
    return this.listAvailableModels(language);
  }

  /** Local fast-STT size: tiny|base|small|medium|large-v2|large-v3 (`large` means large-v3). */
  setWhisper(name: string): boolean {
    const size = normaliseWhisper(name);
    if (!size) return false;
    this.whisperModel = size;
    return true;
  }

  getWhisper(): string {
    return this.whisperModel;
  }

  /** Validates both values before applying either (B.2 `set_qwen3_tts_codebook_generation`). */
  setCodebookGeneration(change: { predictor?: string | null; sampler?: string | null } = {}): CodebookSettings {
    this.codebook = mergeCodebook(this.codebook, change);
    return { ...this.codebook };
  }

  getCodebookGeneration(): CodebookSettings {
    return { ...this.codebook };
  }

  // ---- profiles -----------------------------------------------------------------------------------

  /** Profiles of the active engine; only kind `tts` exists (B.2). Failures give an empty list. */
  async getProfiles(kind = 'tts'): Promise<VoiceProfile[]> {
    checkKind(kind);
    if (!this.tts) return [];
    try {
      return await this.tts.profiles();
    } catch {
      return [];
    }
  }

  /** Selects a profile of the active engine (`id` or `engine:id`); false when it is not listed. */
  async setProfile(profileId: string, kind = 'tts'): Promise<boolean> {
    checkKind(kind);
    if (!this.tts || typeof profileId !== 'string' || profileId.trim() === '') return false;
    const id = stripEngine(profileId.trim(), this.tts.id);
    const profiles = await this.getProfiles(kind);
    if (!profiles.some((p) => p.profile_id === id)) return false;
    this.activeProfile = id;
    return true;
  }

  async getActiveProfile(kind = 'tts'): Promise<VoiceProfile | null> {
    checkKind(kind);
    if (!this.tts || !this.activeProfile) return null;
    const profiles = await this.getProfiles(kind);
    return profiles.find((p) => p.profile_id === this.activeProfile) ?? { engine_id: this.tts.id, profile_id: this.activeProfile, label: this.activeProfile, params: {} };
  }

  // ---- recognition --------------------------------------------------------------------------------

  /** Transcribes audio bytes (a WAV upload, say) with the STT engine, built on first use. */
  async transcribeFromBytes(bytes: Buffer | Uint8Array, options: TranscribeOptions = {}): Promise<string> {
    if (!bytes || bytes.length === 0) throw new VoiceError('Missing audio file.', 400, 'missing_audio');
    const engine = this.sttEngine();
    await this.ensureAvailable(engine, 'STT');
    const language = options.language !== undefined ? normaliseLanguage(options.language) : this.language;
    const result = await engine.transcribe(
      { bytes: Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), filename: options.filename ?? 'audio.wav', contentType: options.contentType },
      { language, ...(options.model ?? this.options.sttModel ? { model: options.model ?? this.options.sttModel } : {}), ...(options.prompt ? { prompt: options.prompt } : {}), signal: options.signal },
    );
    return result.text;
  }

  /** Transcribes an audio file (a regular file, at most `maxAudioFileBytes`). */
  async transcribeFile(path: string, options: TranscribeOptions = {}): Promise<string> {
    const bytes = await this.readAudioFile(path);
    return this.transcribeFromBytes(bytes, { filename: basename(path), ...options });
  }

  private async readAudioFile(path: string): Promise<Buffer> {
    const limit = this.options.maxAudioFileBytes ?? DEFAULT_MAX_AUDIO_FILE_BYTES;
    let info;
    try {
      info = await stat(path);
    } catch {
      throw new VoiceError(`Audio file not found: ${path}`, 404, 'file_not_found');
    }
    if (!info.isFile()) throw new VoiceError(`Not a regular file: ${path}`, 400, 'not_a_file');
    if (info.size > limit) throw new VoiceError(`The audio file is larger than ${limit} bytes: ${path}`, 400, 'file_too_large');
    return readFile(path);
  }

  // ---- residency ----------------------------------------------------------------------------------

  /** Loads the local TTS engine and, with `warmup`, speaks "Hello." (B.2, B.9); remote engines are `configured`. */
  async preloadTtsEngine(options: { warmup?: boolean; warmupText?: string; warmupFormat?: AudioFormat } = {}): Promise<PreloadResult> {
    const engine = this.requireTts();
    const warm = options.warmup ?? true ? { run: () => this.speakToBytes(options.warmupText ?? 'Hello.', { format: options.warmupFormat ?? 'wav' }), via: 'speak_to_bytes' } : undefined;
    return preloadEngine('tts_engine', engine, this.ttsModel ?? null, () => this.ensureAvailable(engine, 'TTS'), warm);
  }

  /** Best-effort release of the local TTS engine. */
  async unloadTtsEngine(): Promise<UnloadResult> {
    return unloadEngine('tts_engine', this.requireTts());
  }

  /** Builds the STT engine (and loads a local one); with `warmup` and a path, runs one transcription. */
  async preloadSttEngine(options: { warmup?: boolean; warmupAudioPath?: string; language?: string } = {}): Promise<PreloadResult> {
    const engine = this.sttEngine();
    const path = options.warmupAudioPath;
    const warm = options.warmup && path ? { run: () => this.transcribeFile(path, options.language ? { language: options.language } : {}), via: 'transcribe_file' } : undefined;
    return preloadEngine('stt_engine', engine, this.options.sttModel ?? null, () => this.ensureAvailable(engine, 'STT'), warm);
  }

  /** Drops the STT engine (the next transcription builds it again). */
  async unloadSttEngine(): Promise<UnloadResult> {
    const engine = this.stt;
    if (!engine) {
      return { component: 'stt_engine', engine: this.sttId, unloaded: false, state: 'not_loaded', resident: false, local: false, unloadable: false, error: null };
    }
    const result = await unloadEngine('stt_engine', engine);
    if (result.state !== 'failed') {
      this.stt = null;
      await engine.close?.();
    }
    return result;
  }

  /** Loaded local engines (and clone engines the store reports). */
  listResidentComponents(): ResidentComponent[] {
    const out: ResidentComponent[] = [];
    for (const clone of this.clones.residentEngines()) out.push({ component: 'cloning_engine', engine: clone.engine, model: clone.model, resident: true, local: true });
    if (this.tts?.kind === 'local' && this.tts.resident?.()) out.push({ component: 'tts_engine', engine: this.tts.id, model: this.ttsModel ?? null, resident: true, local: true });
    if (this.stt?.kind === 'local' && this.stt.resident?.()) out.push({ component: 'stt_engine', engine: this.stt.id, model: this.options.sttModel ?? null, resident: true, local: true });
    return out;
  }

  // ---- metrics ------------------------------------------------------------------------------------

  /** The last utterance's metrics, then cleared (B.10); null when none was recorded since. */
  popLastTtsMetrics(): UtteranceMetrics | null {
    const metrics = this.lastMetrics;
    this.lastMetrics = null;
    return metrics;
  }

  // ---- cloning (delegated to the store and cloner hooks, clone-speech.ts) ---------------------------

  /** Clones a voice from a reference audio file (B.11); answers the new voice id. */
  async cloneVoice(referenceAudioPath: string, options: CloneCallOptions = {}): Promise<string> {
    return this.clones.cloneVoice(referenceAudioPath, options);
  }

  /** Clones a voice from WAV bytes (stored as `ref_0.wav`). */
  async cloneVoiceFromWavBytes(wavBytes: Uint8Array, options: CloneCallOptions & { meta?: Record<string, unknown> } = {}): Promise<string> {
    return this.clones.cloneVoiceFromWavBytes(wavBytes, options);
  }

  async listClonedVoices(): Promise<CloneRecordView[]> {
    return this.clones.store().list();
  }

  /** The clone's record; 404 "Unknown voice_id: <id>". */
  async getClonedVoice(voiceId: string): Promise<CloneRecordView> {
    return this.clones.get(voiceId);
  }

  async setClonedVoiceReferenceText(voiceId: string, text: string | null): Promise<true> {
    await this.clones.store().setReferenceText(voiceId, text);
    return true;
  }

  async renameClonedVoice(voiceId: string, name: string): Promise<true> {
    await this.clones.store().rename(voiceId, name);
    return true;
  }

  async deleteClonedVoice(voiceId: string): Promise<true> {
    await this.clones.store().delete(voiceId);
    return true;
  }

  async exportVoice(voiceId: string, path: string): Promise<string> {
    return this.clones.store().exportVoice(voiceId, path);
  }

  async importVoice(path: string): Promise<string> {
    return this.clones.store().importVoice(path);
  }

  /** Normalises the preset (errors propagate) and keeps it for clone speech. */
  setClonedTtsQuality(preset: string): boolean {
    this.clonedQuality = normaliseQualityPreset(preset);
    return true;
  }

  getClonedTtsQuality(): QualityPreset | null {
    return this.clonedQuality;
  }

  getCloningRuntimeInfo(): Record<string, unknown> {
    return { cloning_engine: this.options.cloningEngine ?? null, cloning_model: this.options.cloningModel ?? null, resident_engines: this.clones.residentEngines() };
  }

  unloadCloningEngines(keepEngine?: string): Promise<number> {
    return this.clones.unloadEngines(keepEngine);
  }

  // ---- discovery (delegated to the catalog hook) ---------------------------------------------------

  /** `voice_catalog` (B.7), answered by the catalog plugged into the manager. */
  async voiceCatalog(options: { provider?: string | null; model?: string | null; providersOnly?: boolean } = {}): Promise<object> {
    return this.requireCatalog().voiceCatalog(options.provider ?? null, options.model ?? null, options.providersOnly ?? false);
  }

  /** `available_providers` (B.7), answered by the catalog plugged into the manager. */
  async availableProviders(): Promise<object> {
    return this.requireCatalog().availableProviders();
  }

  private requireCatalog(): VoiceCatalogHook {
    const catalog = this.hooks.catalog;
    if (!catalog) throw new VoiceError('No voice catalog is configured for this voice manager.', 501, 'catalog_unavailable');
    return catalog;
  }

  /** What the catalog reads as the current selection (its `active()`). */
  activeSelection(): ActiveSelectionView {
    return {
      ttsProvider: this.tts ? this.ttsId : null,
      sttProvider: this.sttId === 'none' ? null : this.sttId,
      cloningProvider: this.options.cloningEngine ?? null,
      ttsModel: this.ttsModel ?? null,
      sttModel: this.options.sttModel ?? null,
      profile: this.activeProfile || null,
    };
  }

  /** Plugs hooks in after construction (the catalog needs the manager to exist first). */
  useHooks(hooks: VoiceManagerHooks): void {
    Object.assign(this.hooks, hooks);
  }

  // ---- lifecycle ----------------------------------------------------------------------------------

  /** Stops speech, closes every engine and unloads clone engines; idempotent. Answers true. */
  async cleanup(): Promise<boolean> {
    this.stopSpeaking();
    const tts = this.tts;
    const stt = this.stt;
    this.stt = null;
    await Promise.allSettled([tts?.close?.(), stt?.close?.(), this.clones.close()]);
    return true;
  }
}

/** Streaming cloned speech with instructions is refused explicitly (SPEC, B.2). */
function refuseCloneStreamInstructions(options: { voice?: string; instructions?: string }): void {
  if (options.voice && options.instructions) {
    throw new VoiceError('Instructions are not supported when streaming a cloned voice; use speakToBytes.', 400, 'unsupported_instructions');
  }
}

function checkKind(kind: string): void {
  if (kind !== 'tts') throw new VoiceError("Only kind='tts' is supported for now.", 400, 'invalid_kind');
}

function normaliseWhisper(name: string): string | undefined {
  const size = String(name ?? '').trim().toLowerCase();
  if (size === 'large') return 'large-v3';
  return WHISPER_SIZES.includes(size) ? size : undefined;
}
