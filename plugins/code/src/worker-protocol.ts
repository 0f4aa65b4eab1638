/** The messages between the sandbox pool (main thread) and a sandbox worker. */

export type CodeMode = 'sandbox' | 'full_access';

/** One `code` node call: the generated source, the function to call and its `_input`. */
export interface CodeTask {
  source: string;
  function_name: string;
  /** `_input` as JSON text (parsed inside Python). */
  input_json: string;
  mode: CodeMode;
}

export interface WorkerSettings {
  memoryLimitBytes: number;
  maxOutputChars: number;
  /** One Int32 the pool sets to 2 (SIGINT) when a call's time is up: Python raises KeyboardInterrupt. */
  interrupt: SharedArrayBuffer;
}

export interface WorkerRequest {
  id: number;
  task: CodeTask;
}

/** What the origin reports about a call (runtime-nodes §4), measured in the worker. */
export interface ExecutionMetrics {
  duration_ms: number;
  cpu_time_ms: number;
  cpu_percent?: number;
  memory_rss_mb: number;
  memory_rss_delta_mb: number;
}

export type WorkerReply =
  | { kind: 'ready' }
  | { kind: 'broken'; error: string }
  | { kind: 'result'; id: number; ok: boolean; value: unknown; error: string | null; execution: ExecutionMetrics; retire: boolean; timedOut: boolean };

/** A finished call as the pool hands it back. */
export interface CodeOutcome {
  ok: boolean;
  value: unknown;
  error: string | null;
  execution: ExecutionMetrics;
}
