/** The voice plugin's node types for gateway runs (reference runtime-nodes §10). */
import type { NodeTypeRegistry } from '@keel/plugin-gateway-runs';
import { generateVoiceNode } from './generate-voice.js';
import { transcribeAudioNode } from './transcribe-audio.js';
import type { VoiceNodeDeps } from './voice-node-deps.js';

export type { VoiceNodeDeps, VoiceNodeLimits } from './voice-node-deps.js';
export type { SpeechPort } from './speech-port.js';

/** Registers `generate_voice` and `transcribe_audio` as the `voice` plugin's. */
export function registerVoiceNodes(registry: NodeTypeRegistry, deps: VoiceNodeDeps): void {
  registry.register('voice', { generate_voice: generateVoiceNode(deps), transcribe_audio: transcribeAudioNode(deps) });
}
