/** What the voice node types share: the speech port, the plugin's limits and the artifacts plugin (when loaded). */
import type { ArtifactsService } from '@keel/plugin-artifacts';
import type { SpeechPort } from './speech-port.js';

export interface VoiceNodeLimits {
  /** Longest text `generate_voice` speaks. */
  maxTextChars: number;
  /** Largest audio `transcribe_audio` reads (an artifact or inline bytes). */
  maxAudioBytes: number;
}

export interface VoiceNodeDeps {
  speech: SpeechPort;
  /** Whether `provider` of `kind` (the plugin's default when absent) runs on this machine: its work then only touches Keel's own storage. */
  isLocal(kind: 'tts' | 'stt', provider?: string): boolean;
  limits: VoiceNodeLimits;
  /** The artifacts plugin's service (where `transcribe_audio` reads an artifact); null when not loaded (no artifacts are made then). */
  artifacts: ArtifactsService | null;
}
