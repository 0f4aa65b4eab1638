/** The voice manager's constructor options and per-call option shapes (reference B.1, B.2). */
import type { SpeechToTextEngineFactory, TtsEngineFactory, UtteranceMetrics } from './contracts.js';
import type { SpeakOptions } from './speech-request.js';
import type { AudioChunk } from './tts-text-stream.js';

/** Constructor options (reference B.1; camelCase of the seed's §2B names). */
export interface VoiceManagerOptions {
  language?: string;
  ttsEngine?: string;
  sttEngine?: string;
  ttsModel?: string;
  sttModel?: string;
  whisperModel?: string;
  debugMode?: boolean;
  allowDownloads?: boolean;
  clonedTtsStreaming?: boolean;
  cloningEngine?: string;
  cloningModel?: string;
  ttsDeliveryMode?: string | boolean | null;
  remoteBaseUrl?: string;
  remoteApiKey?: string;
  remoteTimeoutS?: number;
  /** Hosted-only key and base URL (`openai_api_key` / `openai_base_url`); never sent to `remoteBaseUrl`. */
  hostedApiKey?: string;
  hostedBaseUrl?: string;
  discoveryTimeoutS?: number;
  discoveryTtlS?: number;
  remoteMaxAudioBytes?: number;
  remoteMaxJsonBytes?: number;
  /** Longest text accepted by one speech call (default 100 000 characters). */
  maxTextChars?: number;
  /** Largest audio file `transcribeFile` / `cloneVoice` read (default 64 MiB). */
  maxAudioFileBytes?: number;
  /** Codebook generation of the instruction-capable engine: `auto|reference`, `multinomial|exponential`. */
  codebookPredictor?: string;
  codebookSampler?: string;
  /** Environment read for the B.16 overrides (default `process.env`). */
  env?: Record<string, string | undefined>;
}

export interface VoiceEngineFactories {
  tts?: readonly TtsEngineFactory[];
  stt?: readonly SpeechToTextEngineFactory[];
}

export interface SpeakToBytesOptions extends SpeakOptions {
  /** `wav` (default), `pcm` (raw s16le), or a format the engine writes itself. */
  format?: string;
  /**
   * Receives this call's own metrics. A host serving several accounts from one manager uses it: the
   * manager's last-utterance record (`popLastTtsMetrics`) may be another, concurrent call's.
   */
  onMetrics?: (metrics: UtteranceMetrics) => void;
}

export interface TextStreamOptions {
  voice?: string;
  instructions?: string;
  sanitizeSyntax?: boolean;
  /** Later-segment limit (default min(engine limit, 240); clones 120). */
  maxChars?: number;
  minChars?: number;
  /** Receives the audio of each segment; without it, iterate the stream. */
  onAudio?: (chunk: AudioChunk) => void | Promise<void>;
}

export interface TranscribeOptions {
  language?: string;
  filename?: string;
  contentType?: string;
  prompt?: string;
  model?: string;
  signal?: AbortSignal;
}
