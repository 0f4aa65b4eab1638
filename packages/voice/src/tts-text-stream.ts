/**
 * The text-stream bridge (reference B.6): text arrives in deltas (an LLM's tokens), a worker takes the
 * next segment whenever its synthesiser is free — so the first audio comes after one short sentence or
 * clause and sentences that arrived meanwhile are packed together — and hands the audio out in order.
 * Event-driven (a push wakes the worker), never a polling timer.
 */
import { VoiceError, type PcmAudio } from './contracts.js';
import { SpeechSegmenter, type SegmenterOptions } from './segmenter.js';

/** One synthesised segment of a streamed utterance. */
export interface AudioChunk {
  samples: Float32Array;
  sampleRate: number;
  /** 0-based position of the segment. */
  index: number;
  /** The text spoken. */
  text: string;
}

/** Synthesises one segment; `undefined` skips it (a segment that sanitises to nothing). */
export type SegmentSynthesizer = (text: string, signal: AbortSignal) => Promise<PcmAudio | undefined>;

export interface TtsTextStreamOptions extends SegmenterOptions {
  /**
   * Receives each chunk (awaited: return a promise to slow the worker down). Without it chunks are
   * queued for the async iterator, at most `maxQueuedChunks` ahead of the reader.
   */
  onAudio?: (chunk: AudioChunk) => void | Promise<void>;
  maxQueuedChunks?: number;
  /** Total text a stream accepts; a push beyond it is refused with VoiceError 400 (default unbounded). */
  maxTotalChars?: number;
  /** Called once when the worker ends (finished, cancelled or failed). */
  onFinish?: (outcome: { cancelled: boolean; error?: unknown; segments: number }) => void;
  /** Called before each segment is synthesised (metrics count it). */
  onSegment?: (text: string) => void;
}

export class TtsTextStream implements AsyncIterable<AudioChunk> {
  private readonly segmenter: SpeechSegmenter;
  private readonly abort = new AbortController();
  private readonly queue: AudioChunk[] = [];
  private readonly maxQueued: number;
  private wakeWorker: (() => void) | undefined;
  private wakeReader: (() => void) | undefined;
  private done = false;
  private failure: unknown;
  private readonly finished: Promise<void>;
  private pushedChars = 0;

  constructor(
    private readonly synthesize: SegmentSynthesizer,
    private readonly options: TtsTextStreamOptions = {},
  ) {
    this.segmenter = new SpeechSegmenter(options);
    this.maxQueued = Math.max(1, options.maxQueuedChunks ?? 2);
    this.finished = this.run();
  }

  /** Adds text; false when the stream is closed or cancelled. */
  push(delta: string): boolean {
    if (this.abort.signal.aborted || this.segmenter.isClosed || typeof delta !== 'string') return false;
    const limit = this.options.maxTotalChars;
    if (limit !== undefined && this.pushedChars + delta.length > limit) {
      throw new VoiceError(`The text stream accepts at most ${limit} characters.`, 400, 'text_too_long');
    }
    this.pushedChars += delta.length;
    this.segmenter.push(delta);
    this.wake();
    return true;
  }

  /** No more text: the remainder is spoken, then the stream ends. */
  close(): void {
    this.segmenter.close();
    this.wake();
  }

  /** Stops before the next chunk is produced; the engine call in flight is aborted. */
  cancel(): void {
    if (this.done) return;
    this.abort.abort();
    this.wake();
  }

  get cancelled(): boolean {
    return this.abort.signal.aborted;
  }

  get isFinished(): boolean {
    return this.done;
  }

  /** Why the worker failed, when it did. */
  get error(): unknown {
    return this.failure;
  }

  /** True once the worker has finished; false when `timeoutMs` passes first. */
  async join(timeoutMs?: number): Promise<boolean> {
    if (timeoutMs === undefined) {
      await this.finished;
      return true;
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, timeoutMs))));
    try {
      return await Promise.race([this.finished.then(() => true as const), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<AudioChunk> {
    try {
      for (;;) {
        const chunk = this.queue.shift();
        if (chunk) {
          this.wake();
          yield chunk;
          continue;
        }
        if (this.done) {
          if (this.failure !== undefined && !this.cancelled) throw this.failure;
          return;
        }
        await new Promise<void>((resolve) => (this.wakeReader = resolve));
      }
    } finally {
      // A reader that stops early (break, error) cancels the rest.
      if (!this.done) this.cancel();
    }
  }

  private wake(): void {
    const worker = this.wakeWorker;
    this.wakeWorker = undefined;
    worker?.();
    const reader = this.wakeReader;
    this.wakeReader = undefined;
    reader?.();
  }

  private sleep(): Promise<void> {
    return new Promise<void>((resolve) => (this.wakeWorker = resolve));
  }

  private async run(): Promise<void> {
    // Let the constructor return before the first take.
    await Promise.resolve();
    let index = 0;
    try {
      for (;;) {
        if (this.cancelled) break;
        const text = this.segmenter.take();
        if (text === undefined) {
          if (this.segmenter.isClosed) break;
          await this.sleep();
          continue;
        }
        this.options.onSegment?.(text);
        const audio = await this.synthesize(text, this.abort.signal);
        if (this.cancelled) break;
        if (!audio) continue;
        const chunk: AudioChunk = { samples: audio.samples, sampleRate: audio.sampleRate, index: index++, text };
        if (this.options.onAudio) await this.options.onAudio(chunk);
        else {
          this.queue.push(chunk);
          this.wake();
          while (this.queue.length >= this.maxQueued && !this.cancelled) await this.sleep();
        }
      }
    } catch (error) {
      if (!this.cancelled) this.failure = error;
    } finally {
      this.done = true;
      this.wake();
      this.options.onFinish?.({ cancelled: this.cancelled, error: this.failure, segments: index });
    }
  }
}
