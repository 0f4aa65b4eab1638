/**
 * What pocketsphinx hears: the upload decoded as WAV (@echogarden/wave-codec), mixed to mono,
 * resampled to 16 kHz (the Speex resampler, WebAssembly) and written back as 16-bit PCM WAV, the
 * only input the Debian model takes.
 */
import { decodeWaveToFloat32Channels, encodeWaveFromFloat32Channels } from '@echogarden/wave-codec';
import SpeexResampler, { type SpeexModule } from '@echogarden/speex-resampler-wasm';
import { VoiceError } from '@keel/voice';

export const MODEL_RATE = 16_000;

export interface AudioLimits {
  maxBytes: number;
  maxSeconds: number;
}

let speex: Promise<SpeexModule> | undefined;

export function loadResampler(): Promise<SpeexModule> {
  speex ??= SpeexResampler();
  speex.catch(() => { speex = undefined; });
  return speex;
}

/** Decodes and checks the upload; every failure is a VoiceError 400 with a sentence naming the problem. */
export function decodeWav(bytes: Buffer, limits: AudioLimits): { samples: Float32Array; sampleRate: number } {
  if (bytes.length > limits.maxBytes) {
    throw new VoiceError(`The audio is ${bytes.length} bytes; this engine accepts at most ${limits.maxBytes}.`, 400, 'audio_too_large');
  }
  if (bytes.length < 12 || bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WAVE') {
    throw new VoiceError('The audio is not a WAV file (RIFF/WAVE); pocketsphinx accepts WAV only.', 400, 'unsupported_format');
  }
  let decoded: { audioChannels: Float32Array[]; sampleRate: number };
  try {
    decoded = decodeWaveToFloat32Channels(bytes, true, true);
  } catch (err) {
    throw new VoiceError(`The WAV file could not be decoded: ${(err as Error).message}`, 400, 'invalid_audio');
  }
  const { audioChannels, sampleRate } = decoded;
  if (!Number.isInteger(sampleRate) || sampleRate < 8000 || sampleRate > 192_000) {
    throw new VoiceError(`The WAV sample rate ${sampleRate} is outside 8000–192000 Hz.`, 400, 'invalid_audio');
  }
  const length = audioChannels[0]?.length ?? 0;
  if (length === 0) throw new VoiceError('The WAV file holds no audio.', 400, 'empty_audio');
  if (length / sampleRate > limits.maxSeconds) {
    throw new VoiceError(`The audio lasts ${(length / sampleRate).toFixed(1)} s; this engine accepts at most ${limits.maxSeconds} s.`, 400, 'audio_too_long');
  }
  return { samples: mixToMono(audioChannels, length), sampleRate };
}

function mixToMono(channels: Float32Array[], length: number): Float32Array {
  if (channels.length === 1) return channels[0]!;
  const out = new Float32Array(length);
  for (const ch of channels) for (let i = 0; i < length; i++) out[i]! += ch[i]! / channels.length;
  return out;
}

/** Resamples mono float audio to `outRate`, in bounded chunks so the resampler's heap stays small. */
export async function resample(samples: Float32Array, inRate: number, outRate = MODEL_RATE): Promise<Float32Array> {
  if (inRate === outRate) return samples;
  const m = await loadResampler();
  const CHUNK = 16_384;
  const outChunk = Math.ceil((CHUNK * outRate) / inRate) + 64;
  const errPtr = m._malloc(4);
  const state = m._speex_resampler_init(1, inRate, outRate, 5, errPtr);
  const inPtr = m._malloc(CHUNK * 4);
  const outPtr = m._malloc(outChunk * 4);
  const lenPtrs = m._malloc(8);
  try {
    if (state === 0) throw new VoiceError(`The audio at ${inRate} Hz cannot be resampled.`, 400, 'invalid_audio');
    // The filter delays its output; skipping its zeros and flushing with silence keeps timing aligned.
    m._speex_resampler_skip_zeros(state);
    const padded = new Float32Array(samples.length + m._speex_resampler_get_input_latency(state));
    padded.set(samples);
    const expected = Math.round((samples.length * outRate) / inRate);
    const out = new Float32Array(expected + outChunk);
    let written = 0;
    for (let pos = 0; pos < padded.length && written < expected;) {
      const take = Math.min(CHUNK, padded.length - pos);
      m.HEAPF32.set(padded.subarray(pos, pos + take), inPtr >> 2);
      m.HEAPU32[lenPtrs >> 2] = take;
      m.HEAPU32[(lenPtrs >> 2) + 1] = outChunk;
      m._speex_resampler_process_float(state, 0, inPtr, lenPtrs, outPtr, lenPtrs + 4);
      const consumed = m.HEAPU32[lenPtrs >> 2]!;
      const produced = m.HEAPU32[(lenPtrs >> 2) + 1]!;
      out.set(m.HEAPF32.subarray(outPtr >> 2, (outPtr >> 2) + produced), written);
      written += produced;
      if (consumed === 0 && produced === 0) break;
      pos += consumed;
    }
    return out.subarray(0, Math.min(written, expected));
  } finally {
    if (state !== 0) m._speex_resampler_destroy(state);
    for (const p of [errPtr, inPtr, outPtr, lenPtrs]) m._free(p);
  }
}

/** 16 kHz mono 16-bit PCM WAV, the input the en-us acoustic model expects. */
export async function toModelWav(bytes: Buffer, limits: AudioLimits): Promise<{ wav: Uint8Array; seconds: number }> {
  const { samples, sampleRate } = decodeWav(bytes, limits);
  const pcm = await resample(samples, sampleRate);
  return { wav: encodeWaveFromFloat32Channels([pcm], MODEL_RATE, 16), seconds: samples.length / sampleRate };
}
