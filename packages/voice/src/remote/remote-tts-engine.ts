/**
 * The remote speech engines `hosted` and `compatible` (reference B.3, B.12): `POST /audio/speech` with
 * JSON `{input, response_format, model?, voice?, instructions?, speed?}`, voices from `/audio/voices`
 * (compatible: then `/voices`), models from `/models`, each discovery answer remembered for the TTL.
 */
import {
  VoiceError,
  type AudioFormat,
  type DiscoveryOptions,
  type EncodedAudio,
  type EngineAvailability,
  type EngineSettings,
  type SpeechRequest,
  type TtsControls,
  type TtsEngine,
  type TtsEngineFactory,
  type VoiceProfile,
} from '../contracts.js';
import { AUDIO_CONTENT_TYPES } from '../audio-encoding.js';
import { isTtsModel, modelIdsFromAnswer, profilesFromVoiceAnswer } from './discovery-shapes.js';
import { isSuccess, parseJson, remoteFailure, RemoteHttpClient } from './http-client.js';
import {
  compatibleEndpoint,
  envList,
  HOSTED_BUILTIN_VOICES,
  HOSTED_DEFAULT_TTS_MODEL,
  HOSTED_DEFAULT_VOICE,
  HOSTED_TTS_MODELS,
  hostedEndpoint,
  nonEmpty,
  type RemoteEndpoint,
} from './remote-settings.js';
import { TtlValue } from './ttl-cache.js';

/** What remote engines can be asked for (B.7 "TTS, remote"; `aac` is not an `AudioFormat` here). */
export const REMOTE_TTS_FORMATS: readonly AudioFormat[] = ['wav', 'mp3', 'flac', 'opus', 'pcm'];

export class RemoteTtsEngine implements TtsEngine {
  readonly kind = 'remote' as const;
  readonly formats = REMOTE_TTS_FORMATS;
  readonly defaultProfile: string;
  readonly controls: TtsControls = { speed: true, instructions: true, profile: true, qualityPreset: false };
  /** The request `model` (configured, else the provider's default; compatible may have none). */
  readonly model: string | undefined;
  private readonly client: RemoteHttpClient;
  private readonly voiceCache: TtlValue<VoiceProfile[]>;
  private readonly modelCache: TtlValue<string[]>;
  private readonly voicePaths: string[];

  constructor(
    readonly id: 'hosted' | 'compatible',
    private readonly endpoint: RemoteEndpoint,
    settings: EngineSettings,
  ) {
    const env = endpoint.env;
    this.client = new RemoteHttpClient(endpoint.baseUrl, endpoint.apiKey);
    this.voiceCache = new TtlValue(endpoint.discoveryTtlMs);
    this.modelCache = new TtlValue(endpoint.discoveryTtlMs);
    if (id === 'hosted') {
      this.model = nonEmpty(settings.ttsModel) ?? nonEmpty(env.VOICE_HOSTED_TTS_MODEL) ?? HOSTED_DEFAULT_TTS_MODEL;
      this.defaultProfile = nonEmpty(env.VOICE_HOSTED_TTS_VOICE) ?? HOSTED_DEFAULT_VOICE;
      this.voicePaths = pathList(env, 'VOICE_HOSTED_VOICE_PROFILE_PATHS', 'VOICE_HOSTED_VOICE_PROFILE_PATH') ?? ['/audio/voices'];
    } else {
      this.model = nonEmpty(settings.ttsModel) ?? nonEmpty(env.VOICE_REMOTE_TTS_MODEL);
      this.defaultProfile = nonEmpty(env.VOICE_REMOTE_TTS_VOICE) ?? '';
      this.voicePaths = pathList(env, 'VOICE_REMOTE_VOICE_PROFILE_PATHS', 'VOICE_REMOTE_VOICE_PROFILE_PATH') ?? ['/audio/voices', '/voices'];
    }
  }

  /** The base URL speech goes to (clones made there are spoken there). */
  get baseUrl(): string {
    return this.endpoint.baseUrl;
  }

  /** The resolved limits in force (timeouts in ms, caps in bytes); the key is not part of it. */
  get limits(): { timeoutMs: number; discoveryTimeoutMs: number; discoveryTtlMs: number; maxAudioBytes: number; maxJsonBytes: number } {
    const { timeoutMs, discoveryTimeoutMs, discoveryTtlMs, maxAudioBytes, maxJsonBytes } = this.endpoint;
    return { timeoutMs, discoveryTimeoutMs, discoveryTtlMs, maxAudioBytes, maxJsonBytes };
  }

  async availability(): Promise<EngineAvailability> {
    // Configured is all a remote engine can claim without a probe; the catalog probes within its budget.
    return { available: true };
  }

  languages(): string[] {
    return [];
  }

  async synthesize(request: SpeechRequest, format: AudioFormat): Promise<EncodedAudio> {
    if (!this.formats.includes(format)) throw new VoiceError(`Unsupported audio format: ${format}`, 400, 'unsupported_format');
    const body: Record<string, unknown> = { input: request.text, response_format: format };
    const model = nonEmpty(request.model) ?? this.model;
    if (model) body.model = model;
    const voice = nonEmpty(request.profile) ?? (this.defaultProfile || undefined);
    if (voice) body.voice = voice;
    if (request.instructions) body.instructions = request.instructions;
    if (request.speed !== 1) body.speed = request.speed;
    const answer = await this.client.request({
      method: 'POST',
      path: '/audio/speech',
      headers: { 'content-type': 'application/json', accept: AUDIO_CONTENT_TYPES[format] },
      body: Buffer.from(JSON.stringify(body)),
      timeoutMs: this.endpoint.timeoutMs,
      maxBytes: this.endpoint.maxAudioBytes,
      signal: request.signal,
    });
    if (!isSuccess(answer)) throw remoteFailure('Remote TTS', answer);
    if (answer.body.length === 0) throw new VoiceError('Remote TTS returned empty audio', 502, 'remote_empty_audio');
    return { bytes: answer.body, format, contentType: AUDIO_CONTENT_TYPES[format] };
  }

  /**
   * Voices: hosted lists its built-in voices plus discovered ones and VOICE_HOSTED_TTS_VOICES (a failed
   * probe still lists the built-ins); compatible lists the configured voices plus discovered ones and
   * rejects with VoiceError 502 when no voice path answers (the catalog marks it unreachable).
   */
  async profiles(options: DiscoveryOptions = {}): Promise<VoiceProfile[]> {
    const env = this.endpoint.env;
    const configured = this.id === 'hosted' ? [...HOSTED_BUILTIN_VOICES, ...envList(env, 'VOICE_HOSTED_TTS_VOICES')] : envList(env, 'VOICE_REMOTE_TTS_VOICES');
    if (this.id === 'compatible' && this.defaultProfile && !configured.includes(this.defaultProfile)) configured.unshift(this.defaultProfile);
    let discovered: VoiceProfile[] = [];
    try {
      discovered = await this.voiceCache.get(() => this.probeVoices(options), options.refresh);
    } catch (error) {
      if (this.id === 'compatible') throw error;
    }
    const out = new Map<string, VoiceProfile>();
    for (const id of configured) out.set(id, { engine_id: this.id, profile_id: id, label: id, params: { voice: id }, tags: { kind: 'voice', source: 'configured' } });
    for (const profile of discovered) if (!out.has(profile.profile_id)) out.set(profile.profile_id, profile);
    return [...out.values()];
  }

  /** Models: hosted's known list (no probe); compatible: configured plus the TTS models of `/models`. */
  async models(options: DiscoveryOptions = {}): Promise<string[]> {
    const env = this.endpoint.env;
    const configured = this.id === 'hosted' ? [...HOSTED_TTS_MODELS, ...envList(env, 'VOICE_HOSTED_TTS_MODELS')] : envList(env, 'VOICE_REMOTE_TTS_MODELS');
    if (this.model && !configured.includes(this.model)) configured.push(this.model);
    if (this.id === 'hosted') return configured;
    const discovered = await this.modelCache.get(() => this.probeModels(options), options.refresh);
    return [...new Set([...configured, ...discovered])];
  }

  async close(): Promise<void> {
    this.client.close();
  }

  private async probeVoices(options: DiscoveryOptions): Promise<VoiceProfile[]> {
    let lastError: VoiceError | undefined;
    for (const path of this.voicePaths) {
      try {
        const answer = await this.client.request({ method: 'GET', path, timeoutMs: options.timeoutMs ?? this.endpoint.discoveryTimeoutMs, maxBytes: this.endpoint.maxJsonBytes, signal: options.signal });
        if (!isSuccess(answer)) {
          lastError = remoteFailure(`Remote voice list ${path}`, answer);
          continue;
        }
        return profilesFromVoiceAnswer(this.id, parseJson(`Remote voice list ${path}`, answer.body));
      } catch (error) {
        if (!(error instanceof VoiceError)) throw error;
        lastError = error;
        // An unreachable endpoint will not answer the next path either.
        if (error.code === 'remote_unreachable' || error.code === 'remote_timeout') break;
      }
    }
    throw lastError ?? new VoiceError('No voice list path is configured.', 502, 'remote_error');
  }

  private async probeModels(options: DiscoveryOptions): Promise<string[]> {
    const path = nonEmpty(this.endpoint.env.VOICE_REMOTE_TTS_MODEL_PATH) ?? nonEmpty(this.endpoint.env.VOICE_REMOTE_MODEL_PATH) ?? '/models';
    const answer = await this.client.request({ method: 'GET', path, timeoutMs: options.timeoutMs ?? this.endpoint.discoveryTimeoutMs, maxBytes: this.endpoint.maxJsonBytes, signal: options.signal });
    // An endpoint without a model list is fine: the configured models stand.
    if (answer.status === 404 || answer.status === 405) return [];
    if (!isSuccess(answer)) throw remoteFailure(`Remote model list ${path}`, answer);
    return modelIdsFromAnswer(parseJson(`Remote model list ${path}`, answer.body), isTtsModel);
  }
}

function pathList(env: Record<string, string | undefined>, listName: string, singleName: string): string[] | undefined {
  const paths = envList(env, listName, singleName);
  return paths.length > 0 ? paths : undefined;
}

/** `hosted`: the official OpenAI-shaped service; needs a key (B.1). */
export const hostedTtsFactory: TtsEngineFactory = {
  id: 'hosted',
  create: (settings) => new RemoteTtsEngine('hosted', hostedEndpoint(settings), settings),
};

/** `compatible`: any OpenAI-shaped audio server; needs a base URL (B.1). */
export const compatibleTtsFactory: TtsEngineFactory = {
  id: 'compatible',
  create: (settings) => new RemoteTtsEngine('compatible', compatibleEndpoint(settings), settings),
};
