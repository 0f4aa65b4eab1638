/** Engine settings shared by both sides, and how the parent talks to the kernel child. */
export const ENGINE_SETTINGS = {
  llamaThreads: 1,
  /** The plugin's default; llama.cpp caps it at the model's training context. */
  contextSize: 4096,
  onnxThreads: 1,
  onnxBatchSize: 32,
} as const;

/** Environment variables the parent sets for the kernel child. */
export const CHILD_ENV = {
  token: 'KEEL_BENCH_INFERENCE_TOKEN',
  /** JSON array of model folders for the plugin's `modelsDirs`. */
  modelsDirs: 'KEEL_BENCH_INFERENCE_MODELS_DIRS',
} as const;
