/**
 * What the web example routes need of the voice plugin (a subset of its `VoiceService`, every call
 * for one account) and the owner defaults it reports; `index.ts` hands in the plugin's own.
 */
import type { AudioFormat, AudioInput } from '@keel/voice';

export interface WebSpeech {
  bytes: Buffer;
  format: AudioFormat;
  contentType: string;
  provider: string;
  model: string | null;
  metrics: Record<string, unknown> | null;
}

export interface VoiceWebBackend {
  speak(account: string, input: { text: string; voice?: string; format?: AudioFormat; speed?: number; language?: string; provider?: string; sanitizeSyntax?: boolean; signal?: AbortSignal }): Promise<WebSpeech>;
  transcribe(account: string, input: { audio: AudioInput; language?: string; provider?: string; prompt?: string; signal?: AbortSignal }): Promise<{ text: string; provider: string }>;
  /** `transcribe` of an upload `read` inside the slot (taken before the body is read, bounded by the deadline: `read` gets its signal). */
  transcribeUpload(account: string, signal: AbortSignal, read: (signal: AbortSignal) => Promise<{ audio: AudioInput; language?: string; provider?: string; prompt?: string }>): Promise<{ text: string; provider: string }>;
  clone(account: string, input: { audio: AudioInput; name?: string; reference_text?: string; provider?: string; model?: string; signal?: AbortSignal }): Promise<{ voice_id: string; name: string; engine: string } & Record<string, unknown>>;
  /** `clone` of an upload `read` inside the slot (as `transcribeUpload`). */
  cloneUpload(account: string, signal: AbortSignal, read: (signal: AbortSignal) => Promise<{ audio: AudioInput; name?: string; reference_text?: string; provider?: string; model?: string }>): Promise<{ voice_id: string; name: string; engine: string } & Record<string, unknown>>;
  /** Speaks a short sentence with a new cloned voice; when that fails, removes it and throws the sentence saying so. */
  validateClone(account: string, voiceId: string, signal?: AbortSignal): Promise<Record<string, unknown>>;
  voiceCatalog(account: string, filter: { provider?: string; model?: string }): Promise<Record<string, unknown>>;
  availableProviders(account: string): Promise<Record<string, unknown>>;
}

/** The owner defaults `GET /api/status` reports (`defaults`), from the plugin's settings. */
export interface WebDefaults {
  language: string;
  allowDownloads: boolean;
  ttsEngine: string;
  sttEngine: string;
  ttsModel: string | null;
  sttModel: string | null;
  whisperModel: string;
  cloningEngine: string;
  remoteBaseUrl: string | null;
  remoteApiKeyConfigured: boolean;
  remoteTimeoutS: number;
  codebook: { predictor: 'auto' | 'reference'; sampler: 'multinomial' | 'exponential' };
}
