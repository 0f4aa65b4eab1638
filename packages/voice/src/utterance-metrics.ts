/**
 * Last-utterance metrics (reference B.10, seed §2B): a stopwatch per utterance that counts segments,
 * chunks and audio, and builds the record `popLastTtsMetrics` hands out.
 */
import type { UtteranceMetrics } from './contracts.js';

export class UtteranceClock {
  private readonly started = performance.now();
  private firstAudioAt: number | undefined;
  private audioSeconds = 0;
  private chunkCount = 0;
  private segmentCount = 0;
  private longestSegment = 0;
  private firstSegment = 0;

  /**
   * `limits`: the segmentation limits in force (streamed paths report them as `first_segment_max_chars`
   * and `segment_max_chars`); without them (one buffered segment) both report the text's length.
   */
  constructor(
    readonly engine: string,
    private readonly limits?: { first: number; max: number },
  ) {}

  /** A segment of text handed to the engine. */
  segment(text: string): void {
    if (this.segmentCount === 0) this.firstSegment = text.length;
    this.segmentCount++;
    this.longestSegment = Math.max(this.longestSegment, text.length);
  }

  /** A chunk of audio produced (its duration in seconds when known). */
  chunk(seconds: number): void {
    this.firstAudioAt ??= performance.now();
    this.chunkCount++;
    this.audioSeconds += seconds;
  }

  get chunks(): number {
    return this.chunkCount;
  }

  finish(extra: Partial<UtteranceMetrics> = {}): UtteranceMetrics {
    const now = performance.now();
    const synth = (now - this.started) / 1000;
    const ttfb = ((this.firstAudioAt ?? now) - this.started) / 1000;
    return {
      engine: this.engine,
      ttfb_s: round(ttfb),
      synth_s: round(synth),
      audio_s: round(this.audioSeconds),
      rtf: this.audioSeconds > 0 ? round(synth / this.audioSeconds) : 0,
      chunks: this.chunkCount,
      segments: this.segmentCount,
      segment_max_chars: this.limits?.max ?? this.longestSegment,
      first_segment_max_chars: this.limits?.first ?? this.firstSegment,
      ts: Date.now() / 1000,
      ...extra,
    };
  }
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
