/**
 * Creating a cloned voice at a remote (reference B.12): compatible `POST /voice/clone` (multipart file
 * field `file`, fields `name`, `reference_text`), hosted custom voices at `/audio/voices` (file field
 * `audio_sample`, field `consent`, which must be configured). The answer's voice id is looked for at
 * `voice_id`, `id`, `voice`, `data.{voice_id,id,voice}` or `voice.{voice_id,id}`.
 */
import { VoiceError, type EngineSettings } from '../contracts.js';
import { isSuccess, parseJson, remoteFailure, RemoteHttpClient } from './http-client.js';
import { multipartBody } from './multipart.js';
import { compatibleEndpoint, hostedEndpoint, nonEmpty, type RemoteEndpoint } from './remote-settings.js';

export const HOSTED_CONSENT_MISSING =
  "Hosted custom voice creation requires consent. Set VOICE_HOSTED_VOICE_CONSENT_ID, or use cloning_engine='compatible' with a compatible custom clone endpoint.";
export const CLONE_ID_MISSING = 'Remote clone response did not include a voice id';

export interface RemoteCloneInput {
  bytes: Buffer;
  filename: string;
  contentType?: string;
  name?: string;
  referenceText?: string;
  signal?: AbortSignal;
}

/** What the store records for a remote clone (B.11). */
export interface RemoteCloneResult {
  remote_voice_id: string;
  remote_provider: 'hosted' | 'compatible';
  remote_base_url: string;
  remote_clone_path: string;
  remote_response: unknown;
}

export class RemoteVoiceCloner {
  private readonly endpoint: RemoteEndpoint;
  private readonly path: string;
  private readonly fileField: string;
  private readonly consent: string | undefined;

  constructor(
    readonly provider: 'hosted' | 'compatible',
    settings: EngineSettings,
  ) {
    this.endpoint = provider === 'hosted' ? hostedEndpoint(settings) : compatibleEndpoint(settings);
    const env = this.endpoint.env;
    if (provider === 'hosted') {
      this.path = nonEmpty(env.VOICE_HOSTED_VOICE_CREATE_PATH) ?? '/audio/voices';
      this.fileField = nonEmpty(env.VOICE_HOSTED_VOICE_AUDIO_FIELD) ?? 'audio_sample';
      this.consent = nonEmpty(env.VOICE_HOSTED_VOICE_CONSENT_ID);
    } else {
      this.path = nonEmpty(env.VOICE_REMOTE_VOICE_CLONE_PATH) ?? '/voice/clone';
      this.fileField = nonEmpty(env.VOICE_REMOTE_VOICE_FILE_FIELD) ?? 'file';
    }
  }

  async clone(input: RemoteCloneInput): Promise<RemoteCloneResult> {
    if (this.provider === 'hosted' && !this.consent) throw new VoiceError(HOSTED_CONSENT_MISSING, 400, 'consent_required');
    if (input.bytes.length === 0) throw new VoiceError('Missing audio file.', 400, 'missing_audio');
    const fields: Record<string, string | undefined> =
      this.provider === 'hosted' ? { name: input.name, consent: this.consent } : { name: input.name, reference_text: input.referenceText };
    const { body, contentType } = multipartBody(fields, [{ name: this.fileField, filename: input.filename, contentType: input.contentType ?? 'audio/wav', bytes: input.bytes }]);
    const client = new RemoteHttpClient(this.endpoint.baseUrl, this.endpoint.apiKey);
    try {
      const answer = await client.request({
        method: 'POST',
        path: this.path,
        headers: { 'content-type': contentType, accept: 'application/json' },
        body,
        timeoutMs: this.endpoint.timeoutMs,
        maxBytes: this.endpoint.maxJsonBytes,
        signal: input.signal,
      });
      if (!isSuccess(answer)) throw remoteFailure('Remote voice clone', answer);
      const parsed = parseJson('Remote voice clone', answer.body);
      const id = cloneIdOf(parsed);
      if (!id) throw new VoiceError(CLONE_ID_MISSING, 502, 'remote_bad_answer');
      return { remote_voice_id: id, remote_provider: this.provider, remote_base_url: this.endpoint.baseUrl, remote_clone_path: this.path, remote_response: parsed };
    } finally {
      client.close();
    }
  }
}

/** The voice id of a clone answer, per B.12's places. */
export function cloneIdOf(answer: unknown): string | undefined {
  const at = (value: unknown, keys: string[]): string | undefined => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
    for (const key of keys) {
      const found = (value as Record<string, unknown>)[key];
      if (typeof found === 'string' && found.trim() !== '' && found.length <= 200) return found.trim();
    }
    return undefined;
  };
  const record = answer && typeof answer === 'object' ? (answer as Record<string, unknown>) : {};
  return at(answer, ['voice_id', 'id', 'voice']) ?? at(record.data, ['voice_id', 'id', 'voice']) ?? at(record.voice, ['voice_id', 'id']);
}
