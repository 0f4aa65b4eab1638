/**
 * Microphone recording to a WAV file the local recogniser reads (16 kHz, mono, 16-bit PCM): the
 * microphone's samples are collected while recording, then resampled and encoded on stop. Browsers
 * record compressed audio (webm/opus) with MediaRecorder, which the local engines do not read.
 */
const TARGET_RATE = 16_000;

export interface Recording {
  wav: Blob;
  seconds: number;
}

export class Recorder {
  private stream: MediaStream | null = null;
  private context: AudioContext | null = null;
  private chunks: Float32Array[] = [];
  private sampleRate = 48_000;

  /** Told the level (0–1) and seconds recorded as the samples arrive. */
  constructor(private readonly onProgress: (level: number, seconds: number) => void) {}

  get recording(): boolean {
    return this.stream !== null;
  }

  async start(): Promise<void> {
    this.chunks = [];
    this.stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false } });
    this.context = new AudioContext();
    this.sampleRate = this.context.sampleRate;
    const source = this.context.createMediaStreamSource(this.stream);
    // ScriptProcessor hands the samples to this page without a worklet module; the silent gain keeps the graph running without echo.
    const processor = this.context.createScriptProcessor(4096, 1, 1);
    const mute = this.context.createGain();
    mute.gain.value = 0;
    let total = 0;
    processor.onaudioprocess = (event) => {
      const input = event.inputBuffer.getChannelData(0);
      this.chunks.push(new Float32Array(input));
      total += input.length;
      let peak = 0;
      for (const s of input) peak = Math.max(peak, Math.abs(s));
      this.onProgress(Math.min(1, peak), total / this.sampleRate);
    };
    source.connect(processor);
    processor.connect(mute);
    mute.connect(this.context.destination);
  }

  async stop(): Promise<Recording> {
    for (const track of this.stream?.getTracks() ?? []) track.stop();
    this.stream = null;
    await this.context?.close();
    this.context = null;
    const length = this.chunks.reduce((n, c) => n + c.length, 0);
    const samples = new Float32Array(length);
    let at = 0;
    for (const chunk of this.chunks) {
      samples.set(chunk, at);
      at += chunk.length;
    }
    this.chunks = [];
    const resampled = resample(samples, this.sampleRate, TARGET_RATE);
    return { wav: encodeWav(resampled, TARGET_RATE), seconds: samples.length / this.sampleRate };
  }
}

/** Averages the source samples falling in each output sample (a box filter: enough for speech to 16 kHz). */
function resample(samples: Float32Array, from: number, to: number): Float32Array {
  if (from === to) return samples;
  const ratio = from / to;
  const out = new Float32Array(Math.floor(samples.length / ratio));
  for (let i = 0; i < out.length; i++) {
    const start = Math.floor(i * ratio);
    const end = Math.min(samples.length, Math.floor((i + 1) * ratio));
    let sum = 0;
    for (let j = start; j < end; j++) sum += samples[j]!;
    out[i] = end > start ? sum / (end - start) : 0;
  }
  return out;
}

function encodeWav(samples: Float32Array, rate: number): Blob {
  const buffer = new ArrayBuffer(44 + samples.length * 2);
  const view = new DataView(buffer);
  const ascii = (offset: number, text: string) => {
    for (let i = 0; i < text.length; i++) view.setUint8(offset + i, text.charCodeAt(i));
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + samples.length * 2, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, 'data');
  view.setUint32(40, samples.length * 2, true);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]!));
    view.setInt16(44 + i * 2, s < 0 ? s * 0x8000 : s * 0x7fff, true);
  }
  return new Blob([buffer], { type: 'audio/wav' });
}
