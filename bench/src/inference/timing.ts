/** One generation as the bench saw it, on either side, with times in milliseconds from the call. */
export interface GenerationSample {
  /** Call to the first non-empty content delta. */
  ttftMs: number;
  /** First content delta to the last one. */
  streamMs: number;
  /** Call to the end (engine promise settled / HTTP response ended after `[DONE]`). */
  totalMs: number;
  completionTokens: number;
  deltas: number;
  text: string;
  /** CPU time of the process doing the work (engine: this process; kernel: the child), ms; filled in by the caller. */
  cpuMs: number;
}

/** Stamps content deltas as they arrive (performance.now()). */
export class DeltaClock {
  private readonly started = performance.now();
  private first: number | null = null;
  private last: number | null = null;
  private count = 0;
  private readonly parts: string[] = [];

  delta(text: string, at = performance.now()): void {
    if (!text) return;
    this.first ??= at;
    this.last = at;
    this.count++;
    this.parts.push(text);
  }

  finish(completionTokens: number, at = performance.now()): GenerationSample {
    if (this.first === null || this.last === null) throw new Error('the generation streamed no content.');
    return {
      ttftMs: this.first - this.started,
      streamMs: this.last - this.first,
      totalMs: at - this.started,
      completionTokens,
      deltas: this.count,
      text: this.parts.join(''),
      cpuMs: 0,
    };
  }
}
