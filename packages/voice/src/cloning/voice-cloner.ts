/**
 * Voice cloning (reference B.11 "Clone rules", B.12): picks the cloning provider, checks the
 * reference audio (suffix, count, size), creates the voice at the remote and keeps it in the store
 * with the remote's id. Keel ships no local cloning engine: asking for one is a 501 that says so and
 * says what works instead.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { VoiceError, type EngineSettings } from '../contracts.js';
import type { Env } from '../catalog/discovery-settings.js';
import { envOf, remoteTimeoutS } from '../catalog/discovery-settings.js';
import { normalizeProvider } from '../catalog/provider-ids.js';
import { LOCAL_CLONING_UNAVAILABLE, compatibleEndpoint, hostedEndpoint } from '../catalog/providers.js';
import type { RemoteEndpoint } from '../catalog/remote-http.js';
import type { ClonedVoiceStore } from './cloned-voice-store.js';
import { cloneAtRemote, requireHostedConsent } from './remote-clone.js';
import { LOCAL_REFERENCE_SUFFIXES, REMOTE_REFERENCE_SUFFIXES } from './store-limits.js';

/** Cloning engines of the reference that run locally; Keel has none of them. */
export const LOCAL_CLONING_ENGINES = ['local', 'omnivoice', 'f5_tts', 'chroma', 'audiodit', 'qwen3-tts'];
export const REMOTE_CLONING_ENGINES = ['hosted', 'compatible'] as const;

export interface VoiceClonerOptions {
  store: ClonedVoiceStore;
  settings?: Partial<EngineSettings>;
  env?: Env;
  /** The manager's `cloning_engine`; unset picks compatible when configured, else hosted. */
  defaultEngine?: string | null;
}

export interface CloneOptions {
  name?: string | null;
  referenceText?: string | null;
  engine?: string | null;
  /** Accepted for the reference's signature; remote cloning endpoints choose their own model. */
  model?: string | null;
}

export interface CloneBytesOptions extends CloneOptions {
  /** The upload's file name; its suffix is the audio's format (default `.wav`). */
  filename?: string | null;
  contentType?: string | null;
  meta?: Record<string, unknown>;
}

const MIME: Record<string, string> = { '.wav': 'audio/wav', '.flac': 'audio/flac', '.ogg': 'audio/ogg', '.mp3': 'audio/mpeg', '.mpeg': 'audio/mpeg', '.mpga': 'audio/mpeg', '.m4a': 'audio/mp4', '.webm': 'audio/webm', '.aac': 'audio/aac' };

export class VoiceCloner {
  readonly store: ClonedVoiceStore;
  private readonly settings: Partial<EngineSettings>;
  private readonly env: Env;

  constructor(private readonly options: VoiceClonerOptions) {
    this.store = options.store;
    this.settings = options.settings ?? {};
    this.env = options.env ?? envOf(options.settings) ?? process.env;
  }

  /** Which provider a clone request goes to, or why none can take it (never throws). */
  resolveEngine(engine?: string | null): { ok: true; provider: 'hosted' | 'compatible'; endpoint: RemoteEndpoint } | { ok: false; error: VoiceError } {
    const asked = engine ?? this.options.defaultEngine ?? null;
    const hosted = hostedEndpoint(this.settings, this.env);
    const compatible = compatibleEndpoint(this.settings, this.env);
    const id = asked === null || asked === 'auto' ? (compatible ? 'compatible' : hosted ? 'hosted' : 'local') : normalizeProvider('cloning', asked);
    if (id === 'compatible') {
      if (compatible) return { ok: true, provider: 'compatible', endpoint: compatible };
      return { ok: false, error: new VoiceError('Cloning through a compatible endpoint needs remote_base_url (an OpenAI-shaped server with POST /voice/clone).', 501, 'not_configured') };
    }
    if (id === 'hosted') {
      if (hosted) return { ok: true, provider: 'hosted', endpoint: hosted };
      return { ok: false, error: new VoiceError('Hosted voice cloning needs the hosted provider: set HOSTED_API_KEY.', 501, 'not_configured') };
    }
    if (id !== null && LOCAL_CLONING_ENGINES.includes(id)) return { ok: false, error: new VoiceError(LOCAL_CLONING_UNAVAILABLE.reason, 501, 'runtime_missing') };
    return { ok: false, error: new VoiceError(`engine must be one of: ${REMOTE_CLONING_ENGINES.join(', ')} (Keel ships no local cloning engine)`, 400, 'invalid_engine') };
  }

  /**
   * Clones from a file or a folder of WAV/FLAC/OGG files (reference B.11). Remote providers take
   * exactly one file. Answers the new voice id.
   */
  async cloneVoice(referenceAudioPath: string, options: CloneOptions = {}): Promise<string> {
    const target = this.target(options.engine);
    const info = await stat(referenceAudioPath).catch(() => null);
    if (!info) throw new VoiceError(`Reference audio not found: ${referenceAudioPath}`, 400, 'missing_reference_audio');
    let files = [referenceAudioPath];
    if (info.isDirectory()) {
      const names = (await readdir(referenceAudioPath)).filter((n) => LOCAL_REFERENCE_SUFFIXES.includes(extname(n).toLowerCase())).sort();
      files = names.map((n) => join(referenceAudioPath, n));
    } else if (!info.isFile()) {
      throw new VoiceError(`Reference audio is not a regular file: ${referenceAudioPath}`, 400, 'missing_reference_audio');
    }
    if (files.length !== 1) throw new VoiceError(`The ${target.provider} cloning provider takes exactly one reference file (got ${files.length} in ${referenceAudioPath}).`, 400, 'invalid_reference_audio');
    const file = files[0]!;
    const ext = extname(file).toLowerCase();
    if (!REMOTE_REFERENCE_SUFFIXES.includes(ext)) throw new VoiceError(`Unsupported reference audio format: ${ext || '(none)'}. Provide WAV/FLAC/OGG (got: ${file})`, 400, 'unsupported_reference_format');
    const size = (await stat(file)).size;
    if (size > this.store.limits.maxReferenceBytes) throw new VoiceError(`The reference audio has ${size} bytes, more than the ${this.store.limits.maxReferenceBytes} allowed (clone store setting maxReferenceBytes).`, 413, 'reference_too_large');
    return this.createRemote(target, await readFile(file), basename(file), options, { source: file });
  }

  /** Clones from bytes (an upload); stored as `ref_0<suffix>` (`.wav` when the name has none). */
  async cloneVoiceFromBytes(bytes: Uint8Array, options: CloneBytesOptions = {}): Promise<string> {
    const target = this.target(options.engine);
    const ext = extname(options.filename ?? '').toLowerCase() || '.wav';
    if (!REMOTE_REFERENCE_SUFFIXES.includes(ext)) throw new VoiceError(`Unsupported reference audio format: ${ext.slice(0, 16)}. Provide WAV/FLAC/OGG (got: ${basename(options.filename ?? '').slice(0, 100)})`, 400, 'unsupported_reference_format');
    if (bytes.length === 0) throw new VoiceError('The reference audio is empty.', 400, 'missing_reference_audio');
    if (bytes.length > this.store.limits.maxReferenceBytes) throw new VoiceError(`The reference audio has ${bytes.length} bytes, more than the ${this.store.limits.maxReferenceBytes} allowed (clone store setting maxReferenceBytes).`, 413, 'reference_too_large');
    return this.createRemote(target, bytes, `reference${ext}`, options, { ...(options.meta ?? {}), source: 'bytes' }, options.contentType ?? undefined);
  }

  private target(engine: string | null | undefined): { provider: 'hosted' | 'compatible'; endpoint: RemoteEndpoint } {
    const resolved = this.resolveEngine(engine);
    if (!resolved.ok) throw resolved.error;
    if (resolved.provider === 'hosted') requireHostedConsent(this.env);
    return resolved;
  }

  private async createRemote(target: { provider: 'hosted' | 'compatible'; endpoint: RemoteEndpoint }, bytes: Uint8Array, filename: string, options: CloneOptions, meta: Record<string, unknown>, contentType?: string): Promise<string> {
    // Checked before the upload, so a bad name never leaves a voice at the remote that the store refuses.
    const name = options.name === undefined || options.name === null || options.name.trim() === '' ? null : this.store.checkName(options.name);
    const referenceText = this.store.checkReferenceText(options.referenceText);
    const ext = extname(filename).toLowerCase();
    const timeoutMs = remoteTimeoutS(this.settings.remoteTimeoutS ?? this.env.VOICE_REMOTE_TIMEOUT_S) * 1000;
    const result = await cloneAtRemote(target.provider, target.endpoint, { bytes, filename, contentType: contentType ?? MIME[ext], name: name ?? 'voice', referenceText }, this.env, timeoutMs, this.store.limits.maxRecordBytes);
    const response = JSON.stringify(result.response ?? null).length <= this.store.limits.maxRecordBytes ? result.response : { omitted: 'the remote answer was too large to keep' };
    const record = await this.store.create({
      references: [{ bytes, suffix: ext }],
      name,
      referenceText,
      engine: target.provider,
      meta: {
        ...meta,
        remote_voice_id: result.remoteVoiceId,
        remote_provider: target.provider,
        remote_base_url: target.endpoint.baseUrl,
        remote_clone_path: result.path,
        remote_response: response,
      },
    });
    return record.voice_id;
  }
}
