/** Encoding of local engines' samples (WAV via @echogarden/wave-codec, raw s16le PCM) and WAV decoding. */
import { decodeWaveToBuffer, decodeWaveToFloat32Channels, encodeWaveFromFloat32Channels, float32ToInt16Pcm, SampleFormat } from '@echogarden/wave-codec';
import { VoiceError, type AudioFormat, type EncodedAudio, type PcmAudio } from './contracts.js';
import { echoInput } from './echo-input.js';

/** Content types of B.15 (pcm is raw bytes without a header). */
export const AUDIO_CONTENT_TYPES: Readonly<Record<AudioFormat, string>> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  opus: 'audio/ogg',
  pcm: 'application/octet-stream',
};

export const AUDIO_FORMATS: readonly AudioFormat[] = ['wav', 'mp3', 'flac', 'ogg', 'opus', 'pcm'];

/** `wav` (also `wave`, any case) or another known format; else VoiceError 400 "Unsupported audio format: x". */
export function normaliseAudioFormat(value: unknown): AudioFormat {
  const text = typeof value === 'string' ? value.trim().toLowerCase() : '';
  const format = text === 'wave' ? 'wav' : text;
  if (!(AUDIO_FORMATS as readonly string[]).includes(format)) throw unsupportedFormat(String(value));
  return format as AudioFormat;
}

export function unsupportedFormat(format: string): VoiceError {
  return new VoiceError(`Unsupported audio format: ${echoInput(format)}`, 400, 'unsupported_format');
}

/** Samples as 16-bit mono WAV or raw s16le PCM; other formats need an engine that writes them. */
export function encodePcm(audio: PcmAudio, format: AudioFormat): EncodedAudio {
  if (format === 'wav') {
    const bytes = encodeWaveFromFloat32Channels([audio.samples], audio.sampleRate, 16, SampleFormat.PCM);
    return { bytes: toBuffer(bytes), format, contentType: AUDIO_CONTENT_TYPES.wav };
  }
  if (format === 'pcm') {
    const pcm = float32ToInt16Pcm(audio.samples);
    const bytes = Buffer.alloc(pcm.length * 2);
    // Explicit little-endian, whatever the host's byte order.
    for (let i = 0; i < pcm.length; i++) bytes.writeInt16LE(pcm[i]!, i * 2);
    return { bytes, format, contentType: AUDIO_CONTENT_TYPES.pcm };
  }
  throw unsupportedFormat(format);
}

/** Decodes WAV bytes to mono samples (channels averaged); VoiceError 502 when the bytes are no WAV. */
export function decodeWav(bytes: Uint8Array): PcmAudio {
  let decoded;
  try {
    decoded = decodeWaveToFloat32Channels(bytes, true, true);
  } catch (error) {
    throw new VoiceError(`The audio is not a readable WAV file: ${(error as Error).message}`, 502, 'bad_audio');
  }
  const channels = decoded.audioChannels;
  if (channels.length <= 1) return { samples: channels[0] ?? new Float32Array(0), sampleRate: decoded.sampleRate };
  const mono = new Float32Array(channels[0]!.length);
  for (const channel of channels) for (let i = 0; i < mono.length; i++) mono[i]! += channel[i]! / channels.length;
  return { samples: mono, sampleRate: decoded.sampleRate };
}

/** Rate, channels and frames of WAV bytes, or undefined when they are no WAV (metrics of remote answers). */
export function wavInfo(bytes: Uint8Array): { sampleRate: number; channels: number; frames: number } | undefined {
  try {
    const audio = decodeWaveToFloat32Channels(bytes, true, true);
    return { sampleRate: audio.sampleRate, channels: audio.audioChannels.length, frames: audio.audioChannels[0]?.length ?? 0 };
  } catch {
    return undefined;
  }
}

/**
 * Seconds of audio in WAV bytes, read from the header and the data chunks' sizes (no samples are
 * converted: cheap even for a large upload), or undefined when the bytes are no WAV.
 */
export function wavDurationS(bytes: Uint8Array): number | undefined {
  try {
    const { decodedAudioBuffer, sampleRate, channelCount, bitDepth } = decodeWaveToBuffer(bytes, true, true);
    const frameBytes = channelCount * (bitDepth / 8);
    return sampleRate > 0 && frameBytes > 0 ? decodedAudioBuffer.length / frameBytes / sampleRate : undefined;
  } catch {
    return undefined;
  }
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
