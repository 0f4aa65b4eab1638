/**
 * The provider layer: every source of models (local engines, a remote OpenAI-compatible
 * endpoint, an account's endpoint profile) answers the same calls.
 */
import type { Channel, ChatMessage, FinishReason, GenerationParams } from '@keel/engine-llama';

export type { Channel, ChatMessage, FinishReason, GenerationParams };

export type ModelKind = 'chat' | 'embedding';

export interface ModelInfo {
  /** Full id as clients use it: `local/keel-tiny-chat`, `endpoint:lab/gpt-4o`. */
  id: string;
  /** The provider's own name for the model. */
  name: string;
  provider: string;
  kinds: ModelKind[];
  engine?: 'llama' | 'onnx' | 'remote';
  context_length?: number | null;
  size_bytes?: number;
  description?: string;
}

export type CatalogSource = 'local_folder' | 'allowlist' | 'live_catalog';

export interface ProviderInfo {
  name: string;
  kind: 'local' | 'remote' | 'endpoint';
  label: string;
  /** Where the model list comes from. */
  catalog: CatalogSource;
  base_url?: string;
  profile_id?: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface GenerationOutcome {
  text: string;
  finishReason: FinishReason;
  usage: Usage | null;
  firstTokenMs: number | null;
}

export interface EmbeddingOutcome {
  vectors: number[][];
  usage: { prompt_tokens: number; total_tokens: number } | null;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Called with each piece of generated text as it arrives (streaming). */
  onDelta?: (text: string, channel: Channel) => void;
}

export interface Provider {
  readonly info: ProviderInfo;
  listModels(options?: { refresh?: boolean }): Promise<ModelInfo[]>;
  /** The model by its provider-local name, or null when this provider has no such model. */
  findModel(name: string): Promise<ModelInfo | null>;
  /** Throws a clear error when a known model cannot run now (its file is missing, say). */
  check?(name: string): Promise<void>;
  chat(model: string, messages: ChatMessage[], params: GenerationParams, options: CallOptions): Promise<GenerationOutcome>;
  complete(model: string, prompt: string, params: GenerationParams, options: CallOptions): Promise<GenerationOutcome>;
  embed(model: string, inputs: string[], options: { signal?: AbortSignal }): Promise<EmbeddingOutcome>;
}
