/**
 * What the plugin asks of one voice manager: the calls its routes and node types make. The adapter
 * in `voice-managers.ts` implements it over `@keel/voice`'s VoiceManager, built from owner settings.
 */
import type { AudioFormat, AudioInput, EncodedAudio } from '@keel/voice';
import type { ClonedVoice } from './voice-service.js';

export interface PortSpeech {
  text: string;
  format: AudioFormat;
  voice?: string;
  speed?: number;
  instructions?: string;
  signal: AbortSignal;
}

export interface PortTranscription {
  prompt?: string;
  signal: AbortSignal;
}

export interface PortClone {
  name?: string;
  reference_text?: string;
  signal: AbortSignal;
}

export interface VoiceManagerPort {
  speak(request: PortSpeech): Promise<{ audio: EncodedAudio; metrics: Record<string, unknown> | null }>;
  transcribe(audio: AudioInput, request: PortTranscription): Promise<{ text: string }>;
  clone(audio: AudioInput, request: PortClone): Promise<ClonedVoice>;
  deleteClone(voiceId: string): Promise<void>;
  voiceCatalog(filter: { provider?: string; model?: string }): Promise<Record<string, unknown>>;
  availableProviders(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}
