/** The part of autocannon's programmatic API the benchmarks use (the package ships no types). */
declare module 'autocannon' {
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    /** The sum: for `requests`, the count of completed requests. */
    total: number;
  }

  export interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
  }

  export interface Result {
    errors: number;
    timeouts: number;
    non2xx: number;
    /** Milliseconds, recorded as whole numbers. */
    latency: Histogram;
    /** Requests per one-second sample. */
    requests: Histogram;
  }

  /** The run: awaitable for its result. */
  export type Instance = PromiseLike<Result>;

  function autocannon(options: Options): Instance;
  export default autocannon;
}
