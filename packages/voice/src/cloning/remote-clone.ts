/**
 * Creating a voice at a remote (reference B.12 "Clone" and "Hosted custom voices"): a compatible
 * server takes `POST /voice/clone` (multipart `file`, `name`, `reference_text`) and must answer a
 * voice id; the hosted provider takes `POST /audio/voices` (multipart `audio_sample`, `name`,
 * `consent`) and refuses to run without the consent id.
 */
import { VoiceError } from '../contracts.js';
import type { Env } from '../catalog/discovery-settings.js';
import { HOSTED_CONSENT_MISSING, hostedConsentId } from '../catalog/providers.js';
import { remoteJson, type RemoteEndpoint } from '../catalog/remote-http.js';

export interface RemoteCloneRequest {
  bytes: Uint8Array;
  /** The file name sent with the upload (its suffix tells the remote the format). */
  filename: string;
  contentType?: string;
  name: string;
  referenceText?: string | null;
}

export interface RemoteCloneResult {
  remoteVoiceId: string;
  path: string;
  response: unknown;
}

/** Throws the actionable consent error (before any upload) when the consent id is not configured. */
export function requireHostedConsent(env: Env): string {
  const consent = hostedConsentId(env);
  if (!consent) throw new VoiceError(HOSTED_CONSENT_MISSING, 400, 'consent_required');
  return consent;
}

export async function cloneAtRemote(provider: 'hosted' | 'compatible', endpoint: RemoteEndpoint, request: RemoteCloneRequest, env: Env, timeoutMs: number, maxBytes: number): Promise<RemoteCloneResult> {
  const form = new FormData();
  const blob = new Blob([request.bytes as Uint8Array<ArrayBuffer>], { type: request.contentType ?? 'application/octet-stream' });
  let path: string;
  if (provider === 'hosted') {
    const consent = requireHostedConsent(env);
    path = env.VOICE_HOSTED_VOICE_CREATE_PATH?.trim() || '/audio/voices';
    form.append(env.VOICE_HOSTED_VOICE_AUDIO_FIELD?.trim() || 'audio_sample', blob, request.filename);
    form.append('name', request.name);
    form.append('consent', consent);
  } else {
    path = env.VOICE_REMOTE_VOICE_CLONE_PATH?.trim() || '/voice/clone';
    form.append(env.VOICE_REMOTE_VOICE_FILE_FIELD?.trim() || 'file', blob, request.filename);
    form.append('name', request.name);
    if (request.referenceText) form.append('reference_text', request.referenceText);
  }
  const response = await remoteJson(endpoint, path, { method: 'POST', body: form, timeoutMs, maxBytes });
  const remoteVoiceId = voiceIdIn(response);
  if (remoteVoiceId === null) throw new VoiceError('Remote clone response did not include a voice id', 502, 'remote_bad_answer');
  return { remoteVoiceId, path, response };
}

/** `voice_id`, `id` or `voice`, at the top, under `data`, or under `voice` (reference B.12). */
export function voiceIdIn(body: unknown): string | null {
  const pick = (value: unknown, keys: string[]): string | null => {
    if (!value || typeof value !== 'object') return null;
    for (const key of keys) {
      const found = (value as Record<string, unknown>)[key];
      if (typeof found === 'string' && found.trim() !== '' && found.length <= 200) return found.trim();
    }
    return null;
  };
  const record = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  return pick(record, ['voice_id', 'id', 'voice']) ?? pick(record.data, ['voice_id', 'id', 'voice']) ?? pick(record.voice, ['voice_id', 'id']);
}
