/**
 * Worker-side cache: llama.cpp is loaded once per thread, and each model keeps one context and
 * sequence (a worker runs one task at a time). The least recently used model is unloaded when
 * more than `MAX_MODELS` are open.
 */
import { existsSync } from 'node:fs';
import { getLlama, LlamaLogLevel, resolveChatWrapper, type ChatWrapper, type Llama, type LlamaContext, type LlamaContextSequence, type LlamaEmbeddingContext, type LlamaModel } from 'node-llama-cpp';
import type { ModelLoadOptions } from './protocol.js';

const MAX_MODELS = 2;

export interface LoadedModel {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
  /** Resolved once per model: parsing the GGUF's Jinja template per request cost ~150 ms. */
  chatWrapper: ChatWrapper;
  embedding?: LlamaEmbeddingContext;
}

let llamaPromise: Promise<Llama> | undefined;
const models = new Map<string, Promise<LoadedModel>>();

export class ModelNotFoundError extends Error {}

function loadLlama(): Promise<Llama> {
  llamaPromise ??= getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error, progressLogs: false });
  return llamaPromise;
}

export async function loadModel(options: ModelLoadOptions): Promise<LoadedModel> {
  const key = `${options.modelPath}|${options.contextSize}|${options.threads}`;
  let entry = models.get(key);
  if (entry) {
    // Refresh recency.
    models.delete(key);
    models.set(key, entry);
    return entry;
  }
  if (!existsSync(options.modelPath)) throw new ModelNotFoundError(options.modelPath);
  entry = open(options);
  models.set(key, entry);
  entry.catch(() => models.delete(key));
  while (models.size > MAX_MODELS) {
    const [oldestKey, oldest] = models.entries().next().value as [string, Promise<LoadedModel>];
    models.delete(oldestKey);
    void oldest.then((m) => m.model.dispose()).catch(() => undefined);
  }
  return entry;
}

async function open(options: ModelLoadOptions): Promise<LoadedModel> {
  const llama = await loadLlama();
  const model = await llama.loadModel({ modelPath: options.modelPath });
  const contextSize = Math.min(options.contextSize, model.trainContextSize || options.contextSize);
  const context = await model.createContext({ contextSize, threads: options.threads, sequences: 1 });
  return { llama, model, context, sequence: context.getSequence(), chatWrapper: resolveChatWrapper(model) };
}

export async function embeddingContext(loaded: LoadedModel, threads: number): Promise<LlamaEmbeddingContext> {
  loaded.embedding ??= await loaded.model.createEmbeddingContext({ threads, contextSize: Math.min(loaded.model.trainContextSize || 512, 2048) });
  return loaded.embedding;
}

/** The paths of the models open in this worker (loaded or loading). */
export function openModelPaths(): string[] {
  return [...new Set([...models.keys()].map((key) => key.split('|')[0]!))];
}

/** Closes every open copy of the model at `modelPath`; false when none was open. */
export async function unloadModel(modelPath: string): Promise<boolean> {
  const keys = [...models.keys()].filter((key) => key.split('|')[0] === modelPath);
  for (const key of keys) {
    const entry = models.get(key)!;
    models.delete(key);
    await entry.then((m) => m.model.dispose()).catch(() => undefined);
  }
  return keys.length > 0;
}
