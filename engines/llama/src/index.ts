/** `@keel/engine-llama`: llama.cpp (node-llama-cpp) behind a worker-pool interface. */
export { LlamaEngine, EngineError, llamaWorkerFile } from './llama-engine.js';
export type { TaskRunner, LlamaEngineOptions, GenerateOptions } from './llama-engine.js';
export type {
  ChatMessage, GenerationParams, GenerationResult, EmbeddingResult, ResidencyResult, FinishReason, Channel, Usage, EngineFailure,
} from './protocol.js';
export { readModelInfo } from './model-info.js';
export type { ModelInfo } from './model-info.js';
