/**
 * The host side of the llama engine: submits tasks to a worker pool and relays streamed text.
 * Aborting `signal` posts `abort` to the worker, which stops at the next token and frees itself.
 */
import { MessageChannel, type TransferListItem } from 'node:worker_threads';
import type {
  Channel, ChatMessage, ChatTask, CompleteTask, EmbeddingResult, EngineFailure, GenerationParams, GenerationResult, LlamaTask, PortMessage, ResidencyResult,
} from './protocol.js';

type StreamingTask = Omit<ChatTask, 'port'> | Omit<CompleteTask, 'port'>;

/** What the engine needs of a pool (a piscina instance satisfies it). */
export interface TaskRunner {
  run(task: unknown, options?: { transferList?: TransferListItem[] }): Promise<unknown>;
}

export interface LlamaEngineOptions {
  threads: number;
  contextSize: number;
}

export interface GenerateOptions {
  signal?: AbortSignal;
  onDelta?: (text: string, channel: Channel) => void;
}

export class EngineError extends Error {
  constructor(readonly code: EngineFailure['code'], message: string) {
    super(message);
    this.name = 'EngineError';
  }
}

/** The worker module to give the pool. */
export const llamaWorkerFile = new URL('./worker.js', import.meta.url);

export class LlamaEngine {
  constructor(private readonly pool: TaskRunner, private readonly options: LlamaEngineOptions) {}

  chat(modelPath: string, messages: ChatMessage[], params: GenerationParams, options: GenerateOptions = {}): Promise<GenerationResult> {
    return this.stream({ op: 'chat', messages, params, ...this.load(modelPath) }, options);
  }

  complete(modelPath: string, prompt: string, params: GenerationParams, options: GenerateOptions = {}): Promise<GenerationResult> {
    return this.stream({ op: 'complete', prompt, params, ...this.load(modelPath) }, options);
  }

  async embed(modelPath: string, inputs: string[]): Promise<EmbeddingResult> {
    return unwrap((await this.pool.run({ op: 'embed', inputs, ...this.load(modelPath) } satisfies LlamaTask)) as EmbeddingResult | EngineFailure);
  }

  /**
   * Which models the engine holds open, or opens / closes one ahead of use. A worker thread keeps
   * its own models: with more than one pool thread this answers for the thread that ran the task.
   */
  async residency(action: 'list' | 'load' | 'unload', modelPath = ''): Promise<ResidencyResult> {
    return unwrap((await this.pool.run({ op: 'residency', action, ...this.load(modelPath) } satisfies LlamaTask)) as ResidencyResult | EngineFailure);
  }

  private load(modelPath: string) {
    return { modelPath, contextSize: this.options.contextSize, threads: this.options.threads };
  }

  private async stream(task: StreamingTask, options: GenerateOptions): Promise<GenerationResult> {
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (msg: PortMessage) => {
      if (msg.t === 'delta') options.onDelta?.(msg.text, msg.channel);
    });
    const abort = () => port1.postMessage({ t: 'abort' });
    if (options.signal?.aborted) abort();
    else options.signal?.addEventListener('abort', abort, { once: true });
    try {
      const result = (await this.pool.run({ ...task, port: port2 } as LlamaTask, { transferList: [port2] })) as GenerationResult | EngineFailure;
      // Deltas posted before the result are already queued on port1; let them drain first.
      await new Promise((r) => setImmediate(r));
      return unwrap(result);
    } finally {
      options.signal?.removeEventListener('abort', abort);
      port1.close();
    }
  }
}

function unwrap<T extends { ok: true }>(result: T | EngineFailure): T {
  if (!result.ok) throw new EngineError(result.code, result.message);
  return result;
}
