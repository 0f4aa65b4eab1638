/**
 * The remote recognition engines `hosted` and `compatible` (reference B.3, B.12): `POST
 * /audio/transcriptions`, multipart with the file field `file` and the fields `model`, `language`,
 * `response_format` (json) and `prompt`.
 */
import {
  VoiceError,
  type AudioInput,
  type DiscoveryOptions,
  type EngineAvailability,
  type EngineSettings,
  type SpeechToTextEngine,
  type SpeechToTextEngineFactory,
  type TranscriptionRequest,
} from '../contracts.js';
import { isSttModel, modelIdsFromAnswer } from './discovery-shapes.js';
import { isSuccess, parseJson, remoteFailure, RemoteHttpClient } from './http-client.js';
import { multipartBody } from './multipart.js';
import { compatibleEndpoint, envList, HOSTED_DEFAULT_STT_MODEL, HOSTED_STT_MODELS, hostedEndpoint, nonEmpty, type RemoteEndpoint } from './remote-settings.js';
import { TtlValue } from './ttl-cache.js';

/** Upload suffixes remote recognisers take (the OpenAI list). */
export const REMOTE_STT_FORMATS: readonly string[] = ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm'];

export class RemoteSttEngine implements SpeechToTextEngine {
  readonly kind = 'remote' as const;
  readonly formats = REMOTE_STT_FORMATS;
  readonly model: string | undefined;
  private readonly client: RemoteHttpClient;
  private readonly modelCache: TtlValue<string[]>;

  constructor(
    readonly id: 'hosted' | 'compatible',
    private readonly endpoint: RemoteEndpoint,
    settings: EngineSettings,
  ) {
    const env = endpoint.env;
    this.client = new RemoteHttpClient(endpoint.baseUrl, endpoint.apiKey);
    this.modelCache = new TtlValue(endpoint.discoveryTtlMs);
    this.model =
      id === 'hosted'
        ? (nonEmpty(settings.sttModel) ?? nonEmpty(env.VOICE_HOSTED_STT_MODEL) ?? HOSTED_DEFAULT_STT_MODEL)
        : (nonEmpty(settings.sttModel) ?? nonEmpty(env.VOICE_REMOTE_STT_MODEL));
  }

  async availability(): Promise<EngineAvailability> {
    return { available: true };
  }

  async transcribe(audio: AudioInput, request: TranscriptionRequest): Promise<{ text: string }> {
    const filename = safeFilename(audio.filename);
    const { body, contentType } = multipartBody(
      {
        model: nonEmpty(request.model) ?? this.model,
        language: nonEmpty(request.language),
        prompt: nonEmpty(request.prompt),
        response_format: 'json',
      },
      [{ name: 'file', filename, contentType: audio.contentType ?? contentTypeOf(filename), bytes: audio.bytes }],
    );
    const answer = await this.client.request({
      method: 'POST',
      path: '/audio/transcriptions',
      headers: { 'content-type': contentType, accept: 'application/json' },
      body,
      timeoutMs: this.endpoint.timeoutMs,
      maxBytes: this.endpoint.maxJsonBytes,
      signal: request.signal,
    });
    if (!isSuccess(answer)) throw remoteFailure('Remote STT', answer);
    const parsed = parseJson('Remote STT', answer.body);
    const text = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>).text : undefined;
    if (typeof text !== 'string') throw new VoiceError('Remote STT answered without a text field.', 502, 'remote_bad_answer');
    return { text };
  }

  /** Hosted: its known list; compatible: configured plus the recognition models of `/models`. */
  async models(options: DiscoveryOptions = {}): Promise<string[]> {
    const env = this.endpoint.env;
    const configured = this.id === 'hosted' ? [...HOSTED_STT_MODELS, ...envList(env, 'VOICE_HOSTED_STT_MODELS')] : envList(env, 'VOICE_REMOTE_STT_MODELS');
    if (this.model && !configured.includes(this.model)) configured.push(this.model);
    if (this.id === 'hosted') return configured;
    const discovered = await this.modelCache.get(async () => {
      const path = nonEmpty(env.VOICE_REMOTE_MODEL_PATH) ?? '/models';
      const answer = await this.client.request({ method: 'GET', path, timeoutMs: options.timeoutMs ?? this.endpoint.discoveryTimeoutMs, maxBytes: this.endpoint.maxJsonBytes, signal: options.signal });
      if (answer.status === 404 || answer.status === 405) return [];
      if (!isSuccess(answer)) throw remoteFailure(`Remote model list ${path}`, answer);
      return modelIdsFromAnswer(parseJson(`Remote model list ${path}`, answer.body), isSttModel);
    }, options.refresh);
    return [...new Set([...configured, ...discovered])];
  }

  async close(): Promise<void> {
    this.client.close();
  }
}

/** The upload keeps its suffix (the remote judges the format by it); anything odd becomes `audio.wav`. */
function safeFilename(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  return /^[\w.-]{1,100}$/.test(base) && base.includes('.') ? base : 'audio.wav';
}

function contentTypeOf(filename: string): string {
  const suffix = filename.split('.').pop()?.toLowerCase();
  const types: Record<string, string> = { wav: 'audio/wav', mp3: 'audio/mpeg', flac: 'audio/flac', ogg: 'audio/ogg', oga: 'audio/ogg', webm: 'audio/webm', m4a: 'audio/mp4', mp4: 'audio/mp4' };
  return (suffix && types[suffix]) ?? 'application/octet-stream';
}

export const hostedSttFactory: SpeechToTextEngineFactory = {
  id: 'hosted',
  create: (settings) => new RemoteSttEngine('hosted', hostedEndpoint(settings), settings),
};

export const compatibleSttFactory: SpeechToTextEngineFactory = {
  id: 'compatible',
  create: (settings) => new RemoteSttEngine('compatible', compatibleEndpoint(settings), settings),
};
