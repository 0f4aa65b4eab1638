/** One request's figures, on either side. */
export interface Timing {
  /** From the call to the first audio: the engine's first samples, or the first body byte over HTTP. */
  firstAudioMs: number;
  /** From the call to the last audio. */
  totalMs: number;
  /** Seconds of audio produced. */
  audioS: number;
}

/** Real-time factor: synthesis time over audio time (below 1 is faster than real time). */
export function rtf(t: Timing): number {
  return t.totalMs / 1000 / t.audioS;
}
