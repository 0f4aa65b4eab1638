/**
 * Playback and capture need a sound device; a server has none, so the calls that would use one answer
 * this error instead of pretending (issue 17 item 1). Headless paths are named in the sentence.
 */
import { VoiceError } from './contracts.js';

export function noAudioDevice(call: string): VoiceError {
  return new VoiceError(
    `${call} needs a sound device and this process has none: use speakToBytes / speakToAudioChunks for speech and transcribeFromBytes for recognition.`,
    501,
    'no_audio_device',
  );
}
