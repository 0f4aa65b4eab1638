/** Tasks of the onnx worker threads (sentence embeddings with transformers.js). */
export interface EmbedTask {
  op: 'embed';
  /** Absolute path of a local model folder (config.json, tokenizer.json, onnx/model.onnx). */
  modelDir: string;
  inputs: string[];
  pooling: 'mean' | 'cls';
  normalize: boolean;
  batchSize: number;
  threads: number;
}

export interface EmbeddingResult {
  ok: true;
  vectors: number[][];
  usage: { prompt_tokens: number; total_tokens: number };
}

export interface EngineFailure {
  ok: false;
  code: 'model_not_found' | 'model_load_failed' | 'engine_error';
  message: string;
}
