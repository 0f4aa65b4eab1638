/**
 * A remote OpenAI-compatible endpoint as a provider: a configured endpoint (`<name>/<model>`)
 * or an account's endpoint profile (`endpoint:<name>/<model>`). Calls go over fetch; streamed
 * answers are relayed delta by delta; aborting the caller's signal aborts the upstream request.
 */
import { HttpError, notFound } from '@keel/plugin-sdk';
import type { CallOptions, ChatMessage, EmbeddingOutcome, GenerationOutcome, GenerationParams, ModelInfo, Provider, ProviderInfo } from './provider.js';
import { sseData, SseEventTooLarge } from './sse-events.js';
import { echoId } from '../echo-id.js';

export interface RemoteEndpoint {
  info: ProviderInfo;
  baseUrl: string;
  apiKey: string | null;
  /** Fixed allowlist; empty means the live catalog. */
  models: string[];
  timeoutMs: number;
  catalogTtlMs: number;
  /** Most characters one streamed event may hold (default {@link DEFAULT_MAX_EVENT_CHARS}). */
  maxEventChars?: number;
}

/** Bounds what a misbehaving endpoint can make the server buffer for one streamed event. */
export const DEFAULT_MAX_EVENT_CHARS = 1_000_000;

interface OpenAIChoice {
  message?: { content?: string | null };
  text?: string;
  delta?: { content?: string | null; reasoning_content?: string | null };
  finish_reason?: string | null;
}

interface OpenAIResponse {
  choices?: OpenAIChoice[];
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null;
  data?: Array<{ id?: string; embedding?: number[] }>;
  error?: { message?: string };
}

export class RemoteProvider implements Provider {
  private catalog: { at: number; models: string[] } | null = null;

  constructor(private readonly endpoint: RemoteEndpoint) {}

  get info(): ProviderInfo {
    return this.endpoint.info;
  }

  async listModels(options: { refresh?: boolean } = {}): Promise<ModelInfo[]> {
    return (await this.modelNames(options.refresh ?? false)).map((name) => this.describe(name));
  }

  async findModel(name: string): Promise<ModelInfo | null> {
    const names = await this.modelNames(false).catch(() => (this.endpoint.models.length ? this.endpoint.models : [name]));
    return names.includes(name) ? this.describe(name) : null;
  }

  chat(model: string, messages: ChatMessage[], params: GenerationParams, options: CallOptions): Promise<GenerationOutcome> {
    return this.generate('/chat/completions', { model, messages, ...wireParams(params) }, options, (c) => c.message?.content ?? '');
  }

  complete(model: string, prompt: string, params: GenerationParams, options: CallOptions): Promise<GenerationOutcome> {
    return this.generate('/completions', { model, prompt, ...wireParams(params) }, options, (c) => c.text ?? '');
  }

  async embed(model: string, inputs: string[], options: { signal?: AbortSignal }): Promise<EmbeddingOutcome> {
    const json = await this.post('/embeddings', { model, input: inputs }, options.signal);
    const vectors = (json.data ?? []).map((d) => d.embedding ?? []);
    const usage = json.usage ? { prompt_tokens: json.usage.prompt_tokens ?? 0, total_tokens: json.usage.total_tokens ?? 0 } : null;
    return { vectors, usage };
  }

  private async generate(path: string, body: Record<string, unknown>, options: CallOptions, textOf: (c: OpenAIChoice) => string): Promise<GenerationOutcome> {
    const started = performance.now();
    if (!options.onDelta) {
      const json = await this.post(path, body, options.signal);
      const choice = json.choices?.[0] ?? {};
      return { text: textOf(choice), finishReason: choice.finish_reason === 'length' ? 'length' : 'stop', usage: usageOf(json), firstTokenMs: null };
    }
    const res = await this.send(path, { ...body, stream: true, stream_options: { include_usage: true } }, options.signal);
    let text = '';
    let finish: GenerationOutcome['finishReason'] = 'stop';
    let usage: GenerationOutcome['usage'] = null;
    let firstTokenMs: number | null = null;
    try {
      for await (const data of sseData(res.body!, this.endpoint.maxEventChars ?? DEFAULT_MAX_EVENT_CHARS)) {
        if (data === '[DONE]') break;
        const chunk = this.parseChunk(data);
        if (chunk.error) throw new HttpError(502, `The endpoint '${this.info.name}' failed mid-stream: ${chunk.error.message ?? 'unknown error'}.`, { code: 'upstream_error' });
        if (chunk.usage) usage = usageOf(chunk);
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const piece = choice.delta ? choice.delta.content ?? '' : textOf(choice);
        const reasoning = choice.delta?.reasoning_content ?? '';
        if (piece || reasoning) firstTokenMs ??= performance.now() - started;
        if (reasoning) options.onDelta(reasoning, 'reasoning');
        if (piece) {
          text += piece;
          options.onDelta(piece, 'content');
        }
        if (choice.finish_reason) finish = choice.finish_reason === 'length' ? 'length' : 'stop';
      }
    } catch (err) {
      if (options.signal?.aborted) return { text, finishReason: 'cancelled', usage, firstTokenMs };
      if (err instanceof SseEventTooLarge) throw new HttpError(502, `The endpoint '${this.info.name}' failed mid-stream: it sent ${err.message} (setting endpoints[].maxEventChars).`, { code: 'upstream_error', cause: err });
      throw err;
    }
    return { text, finishReason: finish, usage, firstTokenMs };
  }

  private parseChunk(data: string): OpenAIResponse {
    try {
      return JSON.parse(data) as OpenAIResponse;
    } catch (err) {
      throw new HttpError(502, `The endpoint '${this.info.name}' failed mid-stream: it sent a chunk that is not JSON (${echoId(data)}).`, { code: 'upstream_error', cause: err });
    }
  }

  private async modelNames(refresh: boolean): Promise<string[]> {
    if (this.endpoint.models.length) return this.endpoint.models;
    const now = Date.now();
    if (!refresh && this.catalog && now - this.catalog.at < this.endpoint.catalogTtlMs) return this.catalog.models;
    const res = await this.send('/models', null, undefined, 'GET');
    const json = (await res.json()) as OpenAIResponse;
    const models = (json.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string').sort();
    this.catalog = { at: now, models };
    return models;
  }

  private async post(path: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<OpenAIResponse> {
    const res = await this.send(path, body, signal);
    return (await res.json()) as OpenAIResponse;
  }

  private async send(path: string, body: Record<string, unknown> | null, signal?: AbortSignal, method = 'POST'): Promise<Response> {
    const url = this.endpoint.baseUrl.replace(/\/+$/, '') + path;
    const timeout = AbortSignal.timeout(this.endpoint.timeoutMs);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body) headers['content-type'] = 'application/json';
    if (this.endpoint.apiKey) headers.authorization = `Bearer ${this.endpoint.apiKey}`;
    let res: Response;
    try {
      res = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : undefined, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    } catch (err) {
      if (signal?.aborted) throw err;
      const reason = timeout.aborted ? `no answer within ${this.endpoint.timeoutMs} ms` : (err as Error).message;
      throw new HttpError(502, `The endpoint '${this.info.name}' (${this.endpoint.baseUrl}) cannot be reached: ${reason}.`, { code: 'upstream_unreachable', cause: err });
    }
    if (!res.ok) throw await upstreamError(this.info.name, res, body?.model);
    return res;
  }

  private describe(name: string): ModelInfo {
    return { id: `${this.info.name}/${name}`, name, provider: this.info.name, kinds: ['chat', 'embedding'], engine: 'remote' };
  }
}

function wireParams(params: GenerationParams): Record<string, unknown> {
  const out: Record<string, unknown> = { temperature: params.temperature };
  if (params.maxTokens !== undefined) out.max_tokens = params.maxTokens;
  if (params.topP !== undefined) out.top_p = params.topP;
  if (params.seed !== undefined) out.seed = params.seed;
  if (params.stop?.length) out.stop = params.stop;
  if (params.frequencyPenalty) out.frequency_penalty = params.frequencyPenalty;
  if (params.presencePenalty) out.presence_penalty = params.presencePenalty;
  if (params.jsonSchema) out.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: params.jsonSchema, strict: true } };
  return out;
}

function usageOf(json: OpenAIResponse): GenerationOutcome['usage'] {
  if (!json.usage) return null;
  const prompt = json.usage.prompt_tokens ?? 0;
  const completion = json.usage.completion_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: json.usage.total_tokens ?? prompt + completion };
}

async function upstreamError(provider: string, res: Response, model: unknown): Promise<HttpError> {
  let message = `${res.status} ${res.statusText}`;
  try {
    const json = (await res.json()) as { error?: { message?: string }; detail?: unknown };
    const detail = json.detail as { message?: unknown } | string | undefined;
    message = json.error?.message ?? (typeof detail === 'string' ? detail : typeof detail?.message === 'string' ? detail.message : message);
  } catch {
    /* not JSON */
  }
  message = message.replace(/\.+$/, '');
  if (res.status === 404 && typeof model === 'string') return notFound(`The model '${echoId(`${provider}/${model}`)}' does not exist (the endpoint said: ${echoId(message)}).`, { code: 'model_not_found', field: 'body.model' });
  if (res.status === 401 || res.status === 403) return new HttpError(502, `The endpoint '${provider}' refused the server-held key: ${message}.`, { code: 'upstream_auth_failed' });
  if (res.status === 400) return new HttpError(400, `The endpoint '${provider}' refused the request: ${message}.`, { code: 'upstream_bad_request' });
  return new HttpError(502, `The endpoint '${provider}' failed: ${message}.`, { code: 'upstream_error' });
}
