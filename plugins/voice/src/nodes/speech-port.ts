/**
 * What the node types and the web example routes need of speech, with every choice explicit in the
 * call: they never change the plugin's shared manager (one account's selected voice must not reach
 * another's request), they say which provider, voice and speed each call uses. The plugin wires it
 * to its VoiceManager (`@keel/voice`).
 */
import type { AudioFormat, AudioInput, QualityPreset } from '@keel/voice';

export interface SpeakRequest {
  text: string;
  format: AudioFormat;
  /** Engine id (`espeak`, `compatible`, `hosted`, ...); absent: the plugin's default. */
  provider?: string;
  model?: string;
  /** A profile id of the provider, or a cloned voice id. */
  voice?: string;
  speed?: number;
  language?: string;
  instructions?: string;
  quality?: QualityPreset;
  signal?: AbortSignal;
}

export interface SpokenAudio {
  bytes: Buffer;
  format: AudioFormat;
  contentType: string;
  /** The provider and model that made it (resolved: never `auto`). */
  provider: string;
  model?: string;
}

export interface TranscribeRequest {
  language?: string;
  prompt?: string;
  provider?: string;
  model?: string;
  signal?: AbortSignal;
}

export interface SpeechPort {
  speak(request: SpeakRequest): Promise<SpokenAudio>;
  transcribe(audio: AudioInput, request: TranscribeRequest): Promise<{ text: string; provider: string; model?: string }>;
  /** Whether `provider` (the default when absent) runs on this machine: its work then only touches Keel's own storage. */
  isLocal(kind: 'tts' | 'stt', provider?: string): boolean;
}
