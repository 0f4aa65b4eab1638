/** The real models in `../shared/models`, when that folder sits beside the repository. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './paths.js';

export const sharedModelsDir = path.resolve(repoRoot, '..', 'shared', 'models');
export const storiesDir = path.join(sharedModelsDir, 'llm');
export const embeddingsDir = path.join(sharedModelsDir, 'embeddings');
export const haveSharedModels = existsSync(path.join(storiesDir, 'stories260K', 'stories260K.gguf')) && existsSync(path.join(embeddingsDir, 'glove-sif-50d', 'onnx', 'model.onnx'));

/** Skips the suite (with a message saying why) when ../shared/models is absent. */
export function requireSharedModels(ctx: Mocha.Context): void {
  if (!haveSharedModels) {
    console.log(`      (skipped: ${sharedModelsDir} is absent; these tests need its real models)`);
    ctx.skip();
  }
}

/** llama2.c's published greedy sample of stories260K (doc/stories260K.md), as MODEL.md quotes it. */
export const STORIES_GREEDY_PREFIX = 'Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, she saw a big, red ball.';
