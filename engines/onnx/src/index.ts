/** `@keel/engine-onnx`: sentence embeddings with transformers.js on onnxruntime-node, in worker threads. */
export { OnnxEngine, OnnxEngineError, onnxWorkerFile } from './onnx-engine.js';
export type { TaskRunner, OnnxEngineOptions } from './onnx-engine.js';
export type { EmbeddingResult, EngineFailure } from './protocol.js';
