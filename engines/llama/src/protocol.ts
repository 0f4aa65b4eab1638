/**
 * Messages between the host (`LlamaEngine`) and the llama worker threads. A task is one piscina
 * call; its tokens stream back over a MessagePort (never one pool task per token), and the host
 * aborts a generation by posting `abort` on that port.
 */
import type { MessagePort } from 'node:worker_threads';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface GenerationParams {
  maxTokens?: number;
  temperature: number;
  topP?: number;
  topK?: number;
  seed?: number;
  stop?: string[];
  frequencyPenalty?: number;
  presencePenalty?: number;
  /** JSON schema the output must follow (enforced with a grammar). */
  jsonSchema?: Record<string, unknown>;
}

export interface ModelLoadOptions {
  modelPath: string;
  /** Context size; capped by the model's training context. */
  contextSize: number;
  threads: number;
}

export interface ChatTask extends ModelLoadOptions {
  op: 'chat';
  messages: ChatMessage[];
  params: GenerationParams;
  port: MessagePort;
}

export interface CompleteTask extends ModelLoadOptions {
  op: 'complete';
  prompt: string;
  params: GenerationParams;
  port: MessagePort;
}

export interface EmbedTask extends ModelLoadOptions {
  op: 'embed';
  inputs: string[];
}

/** Which models a worker holds open, or open / close one ahead of use (`model_residency`). */
export interface ResidencyTask extends ModelLoadOptions {
  op: 'residency';
  action: 'list' | 'load' | 'unload';
}

export type LlamaTask = ChatTask | CompleteTask | EmbedTask | ResidencyTask;

export interface ResidencyResult {
  ok: true;
  /** Model paths open in the worker that ran the task, after the action. */
  loaded: string[];
  /** For `unload`: whether the model was open. */
  changed: boolean;
}

export type FinishReason = 'stop' | 'length' | 'cancelled';
export type Channel = 'content' | 'reasoning';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface GenerationResult {
  ok: true;
  text: string;
  finishReason: FinishReason;
  usage: Usage;
  /** Milliseconds from task start to the first streamed token (null when nothing was generated). */
  firstTokenMs: number | null;
}

export interface EmbeddingResult {
  ok: true;
  vectors: number[][];
  usage: { prompt_tokens: number; total_tokens: number };
}

/** Failures travel as values so their code survives the thread boundary. */
export interface EngineFailure {
  ok: false;
  code: 'model_not_found' | 'model_load_failed' | 'context_overflow' | 'invalid_schema' | 'engine_error';
  message: string;
}

/** Worker → host over the task's port. */
export type PortMessage = { t: 'delta'; text: string; channel: Channel };
/** Host → worker over the task's port. */
export type ControlMessage = { t: 'abort' };
