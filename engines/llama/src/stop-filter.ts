/**
 * Stop sequences with OpenAI's semantics: the answer ends right before the first stop string,
 * wherever token boundaries fall (a stop string may start in the middle of a token, which
 * token-level stop triggers would swallow whole). Text that might be the start of a stop string
 * is held back from the stream until it is known not to be.
 */
export class StopFilter {
  private pending = '';
  private emitted = '';
  private stopped = false;
  private readonly longest: number;

  constructor(private readonly stops: string[]) {
    this.longest = Math.max(0, ...stops.map((s) => s.length));
  }

  get hit(): boolean {
    return this.stopped;
  }

  /** The whole text let through so far. */
  get text(): string {
    return this.emitted;
  }

  /** Adds generated text; returns what can be streamed now ('' while held back or after a stop). */
  push(chunk: string): string {
    if (this.stopped) return '';
    this.pending += chunk;
    let cut = -1;
    for (const stop of this.stops) {
      const at = this.pending.indexOf(stop);
      if (at >= 0 && (cut < 0 || at < cut)) cut = at;
    }
    if (cut >= 0) {
      this.stopped = true;
      return this.release(this.pending.slice(0, cut));
    }
    // Keep back the longest tail that could still grow into a stop string.
    const keep = Math.min(this.pending.length, this.longest - 1);
    let hold = 0;
    for (let n = keep; n > 0; n--) {
      const tail = this.pending.slice(-n);
      if (this.stops.some((s) => s.startsWith(tail))) {
        hold = n;
        break;
      }
    }
    return this.release(this.pending.slice(0, this.pending.length - hold), hold);
  }

  /** At the end of generation: whatever was held back and is not a stop string. */
  flush(): string {
    if (this.stopped) return '';
    return this.release(this.pending);
  }

  private release(text: string, keep = 0): string {
    this.pending = keep ? this.pending.slice(-keep) : '';
    this.emitted += text;
    return text;
  }
}
