/**
 * The shared test data in `../shared` (see `sharedDir`): real models and the real fixture bundles.
 * Suites always run; only a test that needs a piece of it calls `requireShared…(this)` first, which
 * skips that one test with a sentence naming the missing file.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { sharedDir } from './paths.js';

export const sharedModelsDir = path.join(sharedDir, 'models');
export const storiesDir = path.join(sharedModelsDir, 'llm');
export const embeddingsDir = path.join(sharedModelsDir, 'embeddings');
/** The real fixture bundles (`<name>.flow`). */
export const sharedFlowsDir = path.join(sharedDir, 'fixtures', 'flows');
const storiesFile = path.join(storiesDir, 'stories260K', 'stories260K.gguf');
const gloveFile = path.join(embeddingsDir, 'glove-sif-50d', 'onnx', 'model.onnx');
export const haveSharedModels = existsSync(storiesFile) && existsSync(gloveFile);

/** The project's own chat model (models/keel-tiny-chat, always present): what a test uses when the rule it checks needs no particular model. */
export const TINY_CHAT = 'local/keel-tiny-chat';

function skipUnless(ctx: Mocha.Context, file: string, why: string): void {
  if (existsSync(file)) return;
  console.log(`      (skipped: ${file} is absent; ${why})`);
  ctx.skip();
}

/** Skips the calling test unless the real stories260K model (../shared/models/llm) is there. */
export function requireStoriesModel(ctx: Mocha.Context): void {
  skipUnless(ctx, storiesFile, 'this test checks the output of the real stories260K model');
}

/** Skips the calling test unless the real glove-sif-50d embedder (../shared/models/embeddings) is there. */
export function requireGloveModel(ctx: Mocha.Context): void {
  skipUnless(ctx, gloveFile, 'this test checks the output of the real glove-sif-50d embedder');
}

/** Skips the calling test (or, from a `before`, its suite) unless both real models of ../shared/models are there. */
export function requireSharedModels(ctx: Mocha.Context): void {
  requireStoriesModel(ctx);
  requireGloveModel(ctx);
}

/** Skips the calling test unless ../shared/fixtures/flows/`name` is there; answers its path. */
export function requireSharedFlow(ctx: Mocha.Context, name: string): string {
  const file = path.join(sharedFlowsDir, name);
  skipUnless(ctx, file, 'this test runs that real fixture bundle unchanged');
  return file;
}

/** llama2.c's published greedy sample of stories260K (doc/stories260K.md), as MODEL.md quotes it. */
export const STORIES_GREEDY_PREFIX = 'Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, she saw a big, red ball.';
