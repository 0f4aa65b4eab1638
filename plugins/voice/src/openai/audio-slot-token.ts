/**
 * The inference plugin's audio slot, named here by its token name (the SDK matches tokens by name)
 * so this plugin loads without `@keel/plugin-inference`: claiming it tells the inference plugin,
 * which owns `/v1`, that the audio routes are served here (it answers them 501 otherwise). The
 * tests of the 501 fail if this stops being the token the inference plugin provides.
 */
import { token } from '@keel/plugin-sdk';

/** The part of the inference plugin's `OpenAiAudioSlot` this plugin uses. */
export interface OpenAiAudioSlot {
  claim(pluginId: string): void;
  enabled(): boolean;
}

export const openaiAudioSlotToken = token<OpenAiAudioSlot>('inference.openai-audio');
