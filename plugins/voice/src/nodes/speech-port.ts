/**
 * What the node types need of speech: the voice plugin's `VoiceService` calls they make, for the
 * run's account, with every choice explicit in the call (a flow never changes a shared manager).
 */
import type { AudioFormat, AudioInput } from '@keel/voice';

export interface SpeechPort {
  speak(account: string, input: { text: string; format?: AudioFormat; provider?: string; model?: string; voice?: string; speed?: number; language?: string; instructions?: string; signal?: AbortSignal }): Promise<{ bytes: Buffer; format: AudioFormat; contentType: string; provider: string; model: string | null }>;
  transcribe(account: string, input: { audio: AudioInput; language?: string; prompt?: string; provider?: string; model?: string; signal?: AbortSignal }): Promise<{ text: string; provider: string; model: string | null }>;
}
