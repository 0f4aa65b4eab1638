/**
 * The onnx worker module: transformers.js feature extraction on onnxruntime-node, fully offline
 * (remote models disabled, local folders only). A pipeline loads once per thread and model.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { env, pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import type { EmbedTask, EmbeddingResult, EngineFailure } from './protocol.js';

env.allowRemoteModels = false;
env.allowLocalModels = true;

const pipelines = new Map<string, Promise<FeatureExtractionPipeline>>();

export default async function handle(task: EmbedTask): Promise<EmbeddingResult | EngineFailure> {
  if (!existsSync(path.join(task.modelDir, 'config.json'))) {
    return { ok: false, code: 'model_not_found', message: `No model folder at ${task.modelDir} (expected config.json, tokenizer.json and onnx/model.onnx).` };
  }
  let extractor: FeatureExtractionPipeline;
  try {
    extractor = await load(task);
  } catch (err) {
    return { ok: false, code: 'model_load_failed', message: `Could not load ${task.modelDir}: ${(err as Error).message}` };
  }
  try {
    const vectors: number[][] = [];
    let tokens = 0;
    for (let i = 0; i < task.inputs.length; i += task.batchSize) {
      const batch = task.inputs.slice(i, i + task.batchSize);
      const output = await extractor(batch, { pooling: task.pooling, normalize: task.normalize });
      vectors.push(...(output.tolist() as number[][]));
      tokens += countTokens(extractor, batch);
    }
    return { ok: true, vectors, usage: { prompt_tokens: tokens, total_tokens: tokens } };
  } catch (err) {
    return { ok: false, code: 'engine_error', message: (err as Error).message };
  }
}

function load(task: EmbedTask): Promise<FeatureExtractionPipeline> {
  let entry = pipelines.get(task.modelDir);
  if (!entry) {
    env.localModelPath = path.dirname(task.modelDir) + path.sep;
    entry = pipeline('feature-extraction', path.basename(task.modelDir), {
      local_files_only: true,
      dtype: 'fp32',
      session_options: { intraOpNumThreads: task.threads, interOpNumThreads: 1 },
    }) as Promise<FeatureExtractionPipeline>;
    pipelines.set(task.modelDir, entry);
    entry.catch(() => pipelines.delete(task.modelDir));
  }
  return entry;
}

/** Tokens the inputs cost, counted with the model's own tokenizer (for usage reporting). */
function countTokens(extractor: FeatureExtractionPipeline, batch: string[]): number {
  let n = 0;
  for (const text of batch) n += extractor.tokenizer.encode(text).length;
  return n;
}
