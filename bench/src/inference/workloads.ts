/**
 * What is measured: the chat requests (same model, prompt, max_tokens and temperature on both
 * sides) and the embeddings batch. Paths are resolved from the repository root.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InferenceBenchSettings } from './settings.js';

export const REPO_ROOT = path.resolve(fileURLToPath(new URL('../../../', import.meta.url)));
/** Keel's bundled tiny chat model (the kernel finds it through the plugin's `bundledModels`). */
export const TINY_CHAT_PATH = path.join(REPO_ROOT, 'models', 'keel-tiny-chat', 'keel-tiny-chat.gguf');

/** `../shared/models` beside the repository (or `BENCH_SHARED_MODELS_DIR`): real models, absent on some machines. */
export const SHARED_MODELS_DIR = process.env.BENCH_SHARED_MODELS_DIR
  ? path.resolve(process.env.BENCH_SHARED_MODELS_DIR)
  : path.resolve(REPO_ROOT, '..', 'shared', 'models');
export const SHARED_LLM_DIR = path.join(SHARED_MODELS_DIR, 'llm');
export const SHARED_EMBEDDINGS_DIR = path.join(SHARED_MODELS_DIR, 'embeddings');
export const STORIES_PATH = path.join(SHARED_LLM_DIR, 'stories260K', 'stories260K.gguf');
export const GLOVE_DIR = path.join(SHARED_EMBEDDINGS_DIR, 'glove-sif-50d');

export const haveStories = (): boolean => existsSync(STORIES_PATH);
export const haveGlove = (): boolean => existsSync(path.join(GLOVE_DIR, 'onnx', 'model.onnx'));

export interface ChatWorkload {
  id: string;
  /** What the table calls it. */
  label: string;
  /** The GGUF the engine is given directly. */
  modelPath: string;
  /** The same model's id on `/v1`. */
  modelId: string;
  prompt: string;
  maxTokens: number;
}

/** The story request always; the long generation when ../shared has stories260K. */
export function chatWorkloads(settings: InferenceBenchSettings): ChatWorkload[] {
  const story: ChatWorkload = {
    id: 'story',
    label: 'story',
    modelPath: TINY_CHAT_PATH,
    modelId: 'local/keel-tiny-chat',
    prompt: 'Tell me a story.',
    maxTokens: settings.maxTokens,
  };
  if (!haveStories()) return [story];
  // stories260K is not a chat model: it never ends its turn, so every request runs to max_tokens.
  const long: ChatWorkload = {
    id: 'long',
    label: 'long',
    modelPath: STORIES_PATH,
    modelId: 'local/stories260K',
    prompt: 'Tell me a story.',
    maxTokens: settings.longMaxTokens,
  };
  return [story, long];
}

export const EMBEDDING_MODEL_ID = 'local/glove-sif-50d';

const SUBJECTS = ['The cat', 'A little boat', 'My neighbour', 'The old teacher', 'A red bird', 'The river', 'Our team', 'The small dog'];
const VERBS = ['walks to', 'looks at', 'sings about', 'waits near'];
const OBJECTS = ['the park.', 'the sea.', 'a green house.', 'the city at night.'];

/** `count` short, distinct sentences (the same batch for every request on both sides). */
export function sentences(count: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const s = SUBJECTS[i % SUBJECTS.length]!;
    const v = VERBS[Math.floor(i / SUBJECTS.length) % VERBS.length]!;
    const o = OBJECTS[Math.floor(i / (SUBJECTS.length * VERBS.length)) % OBJECTS.length]!;
    const round = Math.floor(i / (SUBJECTS.length * VERBS.length * OBJECTS.length));
    out.push(round ? `${s} ${v} ${o} (${round + 1})` : `${s} ${v} ${o}`);
  }
  return out;
}
