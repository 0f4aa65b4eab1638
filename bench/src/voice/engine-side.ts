/**
 * The engine alone: an espeak engine in this process (its own worker pool), called like the voice
 * manager calls it. Whole: one synthesis of the text. Streamed: the text split like the manager's
 * stream bridge (first segment ≤ 60 characters, then whole sentences ≤ 240), the segments spoken one
 * after another; first audio is the first segment's.
 */
import { EspeakEngine } from '@keel/engine-espeak';
import type { PcmAudio } from '@keel/voice';
import type { Timing } from './timing.js';

export class EngineSide {
  private readonly engine = new EspeakEngine({ maxThreads: 1 });

  preload(): Promise<void> {
    return this.engine.preload();
  }

  async speak(segments: readonly string[]): Promise<Timing> {
    const t0 = performance.now();
    let first = Number.NaN;
    let audioS = 0;
    for (const text of segments) {
      const audio = (await this.engine.synthesize({ text, language: 'en', speed: 1 }, 'wav')) as PcmAudio;
      if (Number.isNaN(first)) first = performance.now() - t0;
      audioS += audio.samples.length / audio.sampleRate;
    }
    return { firstAudioMs: first, totalMs: performance.now() - t0, audioS };
  }

  close(): Promise<void> {
    return this.engine.close();
  }
}
