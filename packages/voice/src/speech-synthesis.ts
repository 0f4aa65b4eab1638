/**
 * Running a prepared speech request (speech-request.ts): whole, to encoded bytes with buffered metrics,
 * or segment by segment through the text-stream bridge with streamed metrics (reference B.2, B.6, B.10).
 */
import { VoiceError, type AudioFormat, type EncodedAudio, type PcmAudio, type SpeechRequest, type TtsEngine, type UtteranceMetrics } from './contracts.js';
import { decodeWav, encodePcm, unsupportedFormat, wavInfo } from './audio-encoding.js';
import { sanitizeSyntax } from './sanitize-syntax.js';
import { FIRST_SEGMENT_MAX_CHARS, SEGMENT_MAX_CHARS } from './segmenter.js';
import type { PreparedSpeech } from './speech-request.js';
import { TtsTextStream, type AudioChunk } from './tts-text-stream.js';
import { UtteranceClock } from './utterance-metrics.js';

/** Clones speak in shorter segments (B.6). */
export const CLONE_SEGMENT_MAX_CHARS = 120;

/**
 * The whole text in one engine call, encoded as `format`: local samples become WAV or raw s16le PCM;
 * other formats only when the engine writes them (else 400 "Unsupported audio format: x").
 */
export async function synthesizeBytes(prepared: PreparedSpeech, format: AudioFormat): Promise<{ audio: EncodedAudio; metrics: UtteranceMetrics }> {
  const { engine } = prepared;
  const local = engine.kind === 'local';
  if (!local && !engine.formats.includes(format)) throw unsupportedFormat(format);
  if (local && format !== 'wav' && format !== 'pcm' && !engine.formats.includes(format)) throw unsupportedFormat(format);
  const clock = new UtteranceClock(prepared.clone ? 'clone' : engine.id);
  clock.segment(prepared.text);
  const produced = await engine.synthesize(prepared.request, local && format === 'pcm' ? 'wav' : format);
  let audio: EncodedAudio;
  let pcm: PcmAudio | undefined;
  if (isPcm(produced)) {
    pcm = produced;
    audio = encodePcm(produced, format);
  } else if (produced.format === format) audio = produced;
  else if (format === 'pcm' && produced.format === 'wav') audio = encodePcm(decodeWav(produced.bytes), 'pcm');
  else throw unsupportedFormat(format);

  const info = pcm ? { sampleRate: pcm.sampleRate, channels: 1, frames: pcm.samples.length } : audio.format === 'wav' ? wavInfo(audio.bytes) : undefined;
  clock.chunk(info && info.sampleRate > 0 ? info.frames / info.sampleRate : 0);
  const metrics = clock.finish({
    streaming: false,
    format: audio.format,
    language: prepared.request.language,
    speed: prepared.request.speed,
    request_contract: 'speech_request_v1',
    ...(info ? { sample_rate: info.sampleRate, channels: info.channels, audio_frames: info.frames } : {}),
    ...(prepared.request.profile ? { profile_id: prepared.request.profile } : {}),
    ...(prepared.profileLabel ? { profile_label: prepared.profileLabel } : {}),
    ...(prepared.clone ? { voice_id: prepared.clone.voice_id, clone_engine: engine.id } : {}),
  });
  return { audio, metrics };
}

export interface SegmentStreamOptions {
  /** Strip markdown per segment (the bridge gets raw deltas; a complete text is stripped before). */
  sanitize: boolean;
  maxChars?: number;
  /** Total text the stream accepts (the manager's `maxTextChars`). */
  maxTotalChars?: number;
  minChars?: number;
  onAudio?: (chunk: AudioChunk) => void | Promise<void>;
  signal?: AbortSignal;
  /** Receives the streamed metrics when the stream ends (finished, cancelled or failed). */
  onMetrics: (metrics: UtteranceMetrics, stream: TtsTextStream) => void;
}

/**
 * A text stream over a prepared request: the first segment ≤ 60 characters, later ones ≤ min(engine
 * limit, 240, `maxChars`) (clones 120); each segment is synthesised to samples.
 */
export function openSegmentStream(prepared: PreparedSpeech, options: SegmentStreamOptions): TtsTextStream {
  const { engine } = prepared;
  const engineLimit = prepared.clone ? CLONE_SEGMENT_MAX_CHARS : Math.min(engine.maxSegmentChars ?? SEGMENT_MAX_CHARS, SEGMENT_MAX_CHARS);
  const maxChars = options.maxChars !== undefined && options.maxChars >= 1 ? Math.min(Math.floor(options.maxChars), engineLimit) : engineLimit;
  const firstMax = Math.min(FIRST_SEGMENT_MAX_CHARS, maxChars);
  const clock = new UtteranceClock(prepared.clone ? 'clone' : engine.id, { first: firstMax, max: maxChars });
  const stream: TtsTextStream = new TtsTextStream(
    async (segment, signal) => {
      const spoken = options.sanitize ? sanitizeSyntax(segment).trim() : segment;
      if (spoken === '') return undefined;
      const audio = await synthesizePcm(engine, { ...prepared.request, text: spoken, signal });
      clock.chunk(audio.sampleRate > 0 ? audio.samples.length / audio.sampleRate : 0);
      return audio;
    },
    {
      firstMaxChars: firstMax,
      maxChars,
      minChars: options.minChars,
      maxTotalChars: options.maxTotalChars,
      onAudio: options.onAudio,
      onSegment: (segment) => clock.segment(segment),
      onFinish: ({ cancelled }) => {
        const metrics = clock.finish({
          streaming: true,
          cancelled,
          language: prepared.request.language,
          speed: prepared.request.speed,
          ...(prepared.clone ? { voice_id: prepared.clone.voice_id, clone_engine: engine.id } : {}),
        });
        options.onMetrics(metrics, stream);
      },
    },
  );
  if (options.signal) {
    if (options.signal.aborted) stream.cancel();
    else options.signal.addEventListener('abort', () => stream.cancel(), { once: true });
  }
  return stream;
}

/** Samples of one segment: local engines give them; remote ones are asked for WAV, decoded. */
export async function synthesizePcm(engine: TtsEngine, request: SpeechRequest): Promise<PcmAudio> {
  const produced = await engine.synthesize(request, 'wav');
  if (isPcm(produced)) return produced;
  if (produced.format !== 'wav') throw new VoiceError(`Engine '${engine.id}' answered ${produced.format} where WAV was asked for.`, 502, 'bad_audio');
  return decodeWav(produced.bytes);
}

export function isPcm(value: PcmAudio | EncodedAudio): value is PcmAudio {
  return (value as PcmAudio).samples instanceof Float32Array;
}
