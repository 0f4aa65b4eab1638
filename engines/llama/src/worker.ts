/**
 * The llama worker module (one per piscina thread). Chat and completion stream text over the
 * task's MessagePort; an `abort` message on that port stops generation at the next token.
 */
import type { MessagePort } from 'node:worker_threads';
import { LlamaChat, LlamaCompletion, type ChatHistoryItem, type LlamaGrammar } from 'node-llama-cpp';
import { embeddingContext, loadModel, ModelNotFoundError, openModelPaths, unloadModel, type LoadedModel } from './model-cache.js';
import { DeltaBatcher } from './delta-batcher.js';
import { StopFilter } from './stop-filter.js';
import type {
  Channel, ChatTask, CompleteTask, ControlMessage, EmbedTask, EmbeddingResult, EngineFailure, FinishReason, GenerationParams,
  GenerationResult, LlamaTask, PortMessage, ResidencyResult, ResidencyTask,
} from './protocol.js';

async function residency(task: ResidencyTask): Promise<ResidencyResult> {
  let changed = false;
  if (task.action === 'load') {
    changed = !openModelPaths().includes(task.modelPath);
    await loadModel(task);
  } else if (task.action === 'unload') {
    changed = await unloadModel(task.modelPath);
  }
  return { ok: true, loaded: openModelPaths(), changed };
}

export default async function handle(task: LlamaTask): Promise<GenerationResult | EmbeddingResult | ResidencyResult | EngineFailure> {
  try {
    switch (task.op) {
      case 'chat':
        return await withPort(task.port, (signal, emit) => chat(task, signal, emit));
      case 'complete':
        return await withPort(task.port, (signal, emit) => complete(task, signal, emit));
      case 'embed':
        return await embed(task);
      case 'residency':
        return await residency(task);
    }
  } catch (err) {
    return failure(err, task.modelPath);
  }
}

type Emit = (text: string, channel: Channel) => void;

/** Wires the port: abort messages become an AbortSignal, text goes out as `delta` messages. */
async function withPort<T>(port: MessagePort, run: (signal: AbortSignal, emit: Emit) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  port.on('message', (msg: ControlMessage) => {
    if (msg.t === 'abort') controller.abort();
  });
  const batcher = new DeltaBatcher((text, channel) => port.postMessage({ t: 'delta', text, channel } satisfies PortMessage));
  try {
    return await run(controller.signal, (text, channel) => batcher.push(text, channel));
  } finally {
    // Deltas must reach the host before the result does.
    batcher.flush();
    port.close();
  }
}

/** What one generation needs from its caller: how to run the evaluator, given the shared options. */
interface Generation {
  params: GenerationParams;
  run(loaded: LoadedModel, options: SharedOptions, onText: (text: string, channel: Channel) => void): Promise<{ response: string; stopReason: string }>;
}

type SharedOptions = ReturnType<typeof sampling> & { grammar?: LlamaGrammar; signal: AbortSignal; stopOnAbortSignal: true };

/**
 * The common path of chat and completion: a fresh sequence, sampling and grammar, stop strings,
 * streamed text, usage from the sequence's token meter, and the finish reason.
 */
async function generate(task: ChatTask | CompleteTask, signal: AbortSignal, emit: Emit, generation: Generation): Promise<GenerationResult> {
  const loaded = await loadModel(task);
  if (signal.aborted) return cancelled();
  const started = performance.now();
  let firstTokenMs: number | null = null;
  const { sequence } = loaded;
  await sequence.clearHistory();
  const before = sequence.tokenMeter.getState();
  const grammar = await grammarFor(loaded, generation.params);
  const stops = new Stops(generation.params.stop, signal);
  const options: SharedOptions = { ...sampling(generation.params), ...(grammar ? { grammar } : {}), signal: stops.signal, stopOnAbortSignal: true };
  const result = await generation.run(loaded, options, (text, channel) => {
    firstTokenMs ??= performance.now() - started;
    if (channel === 'reasoning') emit(text, 'reasoning');
    else stops.stream(text, emit);
  });
  stops.finish(emit);
  const used = sequence.tokenMeter.diff(before);
  return {
    ok: true,
    text: stops.text(result.response),
    finishReason: stops.reason(result.stopReason),
    usage: usage(used.usedInputTokens, used.usedOutputTokens),
    firstTokenMs,
  };
}

function chat(task: ChatTask, signal: AbortSignal, emit: Emit): Promise<GenerationResult> {
  return generate(task, signal, emit, {
    params: task.params,
    async run(loaded, options, onText) {
      const { sequence } = loaded;
      // The model's own chat template renders this history (resolved from the GGUF).
      const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: loaded.chatWrapper });
      try {
        const history: ChatHistoryItem[] = task.messages.map((m) =>
          m.role === 'system' ? { type: 'system', text: m.content } : m.role === 'user' ? { type: 'user', text: m.content } : { type: 'model', response: [m.content] },
        );
        history.push({ type: 'model', response: [] });
        const result = await chat.generateResponse(history, {
          ...options,
          onResponseChunk: (chunk) => {
            if (chunk.text) onText(chunk.text, chunk.type === 'segment' && chunk.segmentType === 'thought' ? 'reasoning' : 'content');
          },
        });
        return { response: result.response, stopReason: result.metadata.stopReason };
      } finally {
        chat.dispose({ disposeSequence: false });
      }
    },
  });
}

function complete(task: CompleteTask, signal: AbortSignal, emit: Emit): Promise<GenerationResult> {
  return generate(task, signal, emit, {
    params: task.params,
    async run({ sequence }, options, onText) {
      const completion = new LlamaCompletion({ contextSequence: sequence });
      try {
        const result = await completion.generateCompletionWithMeta(task.prompt, { ...options, onTextChunk: (text) => onText(text, 'content') });
        return { response: result.response, stopReason: result.metadata.stopReason };
      } finally {
        completion.dispose({ disposeSequence: false });
      }
    },
  });
}

async function embed(task: EmbedTask): Promise<EmbeddingResult> {
  const loaded = await loadModel(task);
  const ctx = await embeddingContext(loaded, task.threads);
  const vectors: number[][] = [];
  let tokens = 0;
  for (const input of task.inputs) {
    tokens += ctx.calculateInputLength(input);
    const embedding = await ctx.getEmbeddingFor(input);
    vectors.push(normalize([...embedding.vector]));
  }
  return { ok: true, vectors, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}

/** Stop sequences for one generation: filters the stream and ends generation on a hit. */
class Stops {
  private readonly filter: StopFilter | null;
  private readonly controller = new AbortController();
  readonly signal: AbortSignal;

  constructor(stop: string[] | undefined, callerSignal: AbortSignal) {
    this.filter = stop?.length ? new StopFilter(stop) : null;
    this.signal = AbortSignal.any([callerSignal, this.controller.signal]);
  }

  stream(text: string, emit: Emit): void {
    if (!this.filter) return emit(text, 'content');
    const out = this.filter.push(text);
    if (out) emit(out, 'content');
    if (this.filter.hit) this.controller.abort();
  }

  finish(emit: Emit): void {
    const rest = this.filter?.flush();
    if (rest) emit(rest, 'content');
  }

  text(generated: string): string {
    return this.filter ? this.filter.text : generated;
  }

  reason(stopReason: string): FinishReason {
    return this.filter?.hit ? 'stop' : finishReason(stopReason);
  }
}

function sampling(params: GenerationParams) {
  const penalties = params.frequencyPenalty || params.presencePenalty;
  return {
    maxTokens: params.maxTokens,
    temperature: params.temperature,
    topP: params.topP,
    topK: params.topK,
    seed: params.seed,
    trimWhitespaceSuffix: false,
    // No implicit repeat penalty: greedy output must equal the model's own argmax.
    repeatPenalty: penalties ? { frequencyPenalty: params.frequencyPenalty, presencePenalty: params.presencePenalty, lastTokens: 64 } : (false as const),
  };
}

async function grammarFor(loaded: LoadedModel, params: GenerationParams): Promise<LlamaGrammar | undefined> {
  if (!params.jsonSchema) return undefined;
  try {
    return await loaded.llama.createGrammarForJsonSchema(params.jsonSchema as Parameters<typeof loaded.llama.createGrammarForJsonSchema>[0]);
  } catch (err) {
    throw Object.assign(new Error(`The JSON schema cannot be turned into a grammar: ${(err as Error).message}`), { code: 'invalid_schema' });
  }
}

function finishReason(stopReason: string): FinishReason {
  if (stopReason === 'maxTokens') return 'length';
  if (stopReason === 'abort') return 'cancelled';
  return 'stop';
}

function usage(input: number, output: number) {
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
}

function cancelled(): GenerationResult {
  return { ok: true, text: '', finishReason: 'cancelled', usage: usage(0, 0), firstTokenMs: null };
}

function normalize(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm > 0 ? v.map((x) => x / norm) : v;
}

function failure(err: unknown, modelPath: string): EngineFailure {
  if (err instanceof ModelNotFoundError) return { ok: false, code: 'model_not_found', message: `Model file not found: ${modelPath}.` };
  const e = err as Error & { code?: string };
  if (e.code === 'invalid_schema') return { ok: false, code: 'invalid_schema', message: e.message };
  if (/context size|too long|exceeds/i.test(e.message ?? '')) return { ok: false, code: 'context_overflow', message: e.message };
  if (/load/i.test(e.message ?? '') && /model/i.test(e.message ?? '')) return { ok: false, code: 'model_load_failed', message: `Could not load ${modelPath}: ${e.message}` };
  return { ok: false, code: 'engine_error', message: e.message ?? String(err) };
}

