/** Reads a GGUF's header (no weights) on the host: architecture, context length, chat template. */
import { statSync } from 'node:fs';

export interface ModelInfo {
  architecture: string | null;
  name: string | null;
  contextLength: number | null;
  embeddingLength: number | null;
  hasChatTemplate: boolean;
  sizeBytes: number;
}

export async function readModelInfo(modelPath: string): Promise<ModelInfo> {
  // node-llama-cpp takes about a second to import: only when a model is read, not with the plugin.
  const { readGgufFileInfo } = await import('node-llama-cpp');
  const info = await readGgufFileInfo(modelPath, { readTensorInfo: false });
  const meta = info.metadata as unknown as Record<string, Record<string, unknown>>;
  const general = (meta.general ?? {}) as Record<string, unknown>;
  const arch = typeof general.architecture === 'string' ? general.architecture : null;
  const archMeta = (arch ? meta[arch] : undefined) ?? {};
  const tokenizer = (meta.tokenizer ?? {}) as Record<string, unknown>;
  return {
    architecture: arch,
    name: typeof general.name === 'string' ? general.name : null,
    contextLength: typeof archMeta.context_length === 'number' ? archMeta.context_length : null,
    embeddingLength: typeof archMeta.embedding_length === 'number' ? archMeta.embedding_length : null,
    hasChatTemplate: typeof tokenizer.chat_template === 'string',
    sizeBytes: statSync(modelPath).size,
  };
}
