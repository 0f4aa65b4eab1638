/** The host side of the onnx engine: embedding tasks submitted to a worker pool. */
import type { EmbedTask, EmbeddingResult, EngineFailure } from './protocol.js';

export interface TaskRunner {
  run(task: unknown): Promise<unknown>;
}

export interface OnnxEngineOptions {
  threads: number;
  batchSize: number;
}

export class OnnxEngineError extends Error {
  constructor(readonly code: EngineFailure['code'], message: string) {
    super(message);
    this.name = 'OnnxEngineError';
  }
}

export const onnxWorkerFile = new URL('./worker.js', import.meta.url);

export class OnnxEngine {
  constructor(private readonly pool: TaskRunner, private readonly options: OnnxEngineOptions) {}

  async embed(modelDir: string, inputs: string[], options: { pooling?: 'mean' | 'cls'; normalize?: boolean } = {}): Promise<EmbeddingResult> {
    const task: EmbedTask = {
      op: 'embed',
      modelDir,
      inputs,
      pooling: options.pooling ?? 'mean',
      normalize: options.normalize ?? true,
      batchSize: this.options.batchSize,
      threads: this.options.threads,
    };
    const result = (await this.pool.run(task)) as EmbeddingResult | EngineFailure;
    if (!result.ok) throw new OnnxEngineError(result.code, result.message);
    return result;
  }
}
