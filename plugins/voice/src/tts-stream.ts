/**
 * The integration plugin's `tts_stream` (reference B.13): speech as a sequence of events, one
 * `audio` event per segment (a complete WAV of that segment: the first one sentence or clause of at
 * most 60 characters, later ones whole sentences up to 240), then one `done` event (or `cancelled`
 * when the caller's signal aborted it). Built over `VoiceService.speakStream`, so the same limits
 * hold (the slot is kept until the last segment was taken). Backpressure: the next segment is
 * synthesised only once the caller asked for the next event.
 */
import { badRequest } from '@keel/plugin-sdk';
import { encodePcm } from '@keel/voice';
import type { SpeechInput, VoiceService } from './voice-service.js';

export interface TtsStreamAudioEvent {
  type: 'audio';
  schema: 'abstractvoice.tts_stream.audio.v1';
  sequence: number;
  content_type: 'audio/wav';
  format: 'wav';
  sample_rate: number;
  channels: 1;
  /** A complete WAV file of this segment. */
  audio: Buffer;
  size_bytes: number;
  provider: string;
  model: string | null;
  voice: string | null;
  profile: string | null;
  delivery: 'abstractvoice_audio_chunk';
}

export interface TtsStreamEndEvent {
  type: 'done' | 'cancelled';
  schema: 'abstractvoice.tts_stream.done.v1';
  ok: boolean;
  cancelled: boolean;
  chunks: number;
  single_chunk: boolean;
  format: 'wav';
  content_type: 'audio/wav';
  /** The text-stream bridge's metrics (reference B.10): `{engine, streaming, cancelled, synth_s, ttfb_s, audio_s, rtf, chunks, ts}`. */
  metrics: Record<string, unknown> & { chunks: number; audio_s: number };
  delivery: 'abstractvoice_audio_chunks';
  native_streaming: null;
}

export type TtsStreamEvent = TtsStreamAudioEvent | TtsStreamEndEvent;

/** A cloned voice id (32 hex, the store's shape) is a voice, not a profile of the provider. */
const CLONE_ID = /^[0-9a-f]{32}$/;

/** What the stream needs of the service: its segment-by-segment speech and which provider speaks a request. */
export type StreamingSpeech = Pick<VoiceService, 'speakStream'> & { ttsProviderOf(input: Pick<SpeechInput, 'model' | 'provider'>): string };

export async function* ttsStreamEvents(service: StreamingSpeech, account: string, input: SpeechInput): AsyncGenerator<TtsStreamEvent> {
  if ((input.format ?? 'wav') !== 'wav') throw badRequest('Voice TTS streaming currently emits wav segment chunks only', { code: 'unsupported_format', field: 'format' });
  if (input.instructions) throw badRequest('Voice TTS streaming does not support instructions yet; use buffered TTS', { code: 'unsupported_instructions', field: 'instructions' });

  // Our own abort, for a caller that stops reading early (`break`), joined with the caller's.
  const stop = new AbortController();
  const signal = input.signal ? AbortSignal.any([input.signal, stop.signal]) : stop.signal;
  const voice = input.voice ?? null;
  const profile = voice && !CLONE_ID.test(voice) ? voice : null;
  const pending: TtsStreamAudioEvent[] = [];
  let wake: (() => void) | undefined;
  let taken: (() => void) | undefined;
  let finished = false;
  let failure: unknown;
  let result: { provider: string; model: string | null } | undefined;
  let sequence = 0;
  let audioS = 0;
  let ttfbS: number | null = null;
  const started = performance.now();
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  const { format: _format, ...speech } = input;
  const work = service
    .speakStream(account, { ...speech, signal }, async (chunk) => {
      const wav = encodePcm(chunk, 'wav').bytes;
      ttfbS ??= (performance.now() - started) / 1000;
      audioS += chunk.samples.length / chunk.sampleRate;
      pending.push({
        type: 'audio', schema: 'abstractvoice.tts_stream.audio.v1', sequence: sequence++, content_type: 'audio/wav', format: 'wav',
        sample_rate: chunk.sampleRate, channels: 1, audio: wav, size_bytes: wav.length, provider: '', model: null, voice, profile,
        delivery: 'abstractvoice_audio_chunk',
      });
      notify();
      // Wait until the caller asked for the event after this one (or stopped).
      await new Promise<void>((resolve) => {
        taken = resolve;
      });
    })
    .then((r) => {
      result = r;
    }, (err: unknown) => {
      failure = err;
    })
    .finally(() => {
      finished = true;
      notify();
    });

  const provider = (): string => result?.provider ?? service.ttsProviderOf(input);
  try {
    for (;;) {
      const next = pending.shift();
      if (next) {
        next.provider = provider();
        yield next;
        const release = taken;
        taken = undefined;
        release?.();
        continue;
      }
      if (finished) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    if (!finished) {
      stop.abort();
      taken?.();
      await work;
    }
  }

  const cancelled = signal.aborted;
  if (failure !== undefined && !cancelled) throw failure;
  const synthS = (performance.now() - started) / 1000;
  const metrics = {
    engine: provider(), streaming: true, cancelled, synth_s: round(synthS), ttfb_s: ttfbS === null ? null : round(ttfbS),
    audio_s: round(audioS), rtf: audioS > 0 ? round(synthS / audioS) : null, chunks: sequence, ts: Date.now() / 1000,
  };
  yield {
    type: cancelled ? 'cancelled' : 'done', schema: 'abstractvoice.tts_stream.done.v1', ok: !cancelled, cancelled, chunks: sequence,
    single_chunk: sequence === 1, format: 'wav', content_type: 'audio/wav', metrics, delivery: 'abstractvoice_audio_chunks', native_streaming: null,
  };
}

const round = (n: number): number => Math.round(n * 1e6) / 1e6;
