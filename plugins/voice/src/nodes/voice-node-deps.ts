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
  limits: VoiceNodeLimits;
  /** The artifacts plugin's service (where `transcribe_audio` reads an artifact); null when not loaded (no artifacts are made then). */
  artifacts: ArtifactsService | null;
}
