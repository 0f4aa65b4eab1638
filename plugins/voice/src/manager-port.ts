/**
 * What the plugin asks of one voice manager: the calls its routes and node types make, each on
 * behalf of one account (whose cloned voices it may use). The adapter in `voice-managers.ts`
 * implements it over `@keel/voice`'s VoiceManager, built from owner settings.
 */
import type { AudioFormat, AudioInput, EncodedAudio, PcmAudio } from '@keel/voice';
import type { ClonedVoice } from './voice-service.js';

export interface PortSpeech {
  text: string;
  format: AudioFormat;
  /** A profile of the engine or one of the account's cloned voices. */
  voice?: string;
  speed?: number;
  instructions?: string;
  language?: string;
  model?: string;
  /** Strip markdown before speaking (the manager's default: true). */
  sanitizeSyntax?: boolean;
  signal: AbortSignal;
}

export interface PortTranscription {
  prompt?: string;
  language?: string;
  model?: string;
  signal: AbortSignal;
}

export interface PortClone {
  name?: string;
  reference_text?: string;
  /** The cloning provider (`compatible`, `hosted`); default the configured `voice_cloning_engine`. */
  engine?: string;
  model?: string;
  signal: AbortSignal;
}

export interface VoiceManagerPort {
  speak(account: string, request: PortSpeech): Promise<{ audio: EncodedAudio; metrics: Record<string, unknown> | null }>;
  /** Speech segment by segment (the first ≤ 60 characters, then ≤ 240): `onChunk` gets each segment's samples in order. */
  speakChunks(account: string, request: Omit<PortSpeech, 'format'>, onChunk: (chunk: PcmAudio) => Promise<void>): Promise<void>;
  transcribe(account: string, audio: AudioInput, request: PortTranscription): Promise<{ text: string; language: string }>;
  clone(account: string, audio: AudioInput, request: PortClone): Promise<ClonedVoice>;
  deleteClone(account: string, voiceId: string): Promise<void>;
  voiceCatalog(account: string, filter: { provider?: string; model?: string }): Promise<Record<string, unknown>>;
  availableProviders(account: string): Promise<Record<string, unknown>>;
  /** Residency (reference B.9): `preload_*_engine`, `unload_*_engine`, `list_resident_components`. */
  preload(kind: 'tts' | 'stt'): Promise<Record<string, unknown>>;
  unload(kind: 'tts' | 'stt'): Promise<Record<string, unknown>>;
  residentComponents(): Array<Record<string, unknown>>;
  close(): Promise<void>;
}
