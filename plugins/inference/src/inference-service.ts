/**
 * The inference service other plugins use (token `inferenceToken`): chat, completion and
 * embeddings for an account, with model ids resolved through the provider layer.
 */
import { badRequest } from '@keel/plugin-sdk';
import type { ApiSettings } from './api-settings.js';
import { echoId } from './echo-id.js';
import { LOCAL_PROVIDER, type LocalProvider } from './providers/local-provider.js';
import type { InputLimits } from './input-limits.js';
import type { ProviderRegistry, ResolvedModel } from './providers/provider-registry.js';
import type { CallOptions, ChatMessage, EmbeddingOutcome, GenerationOutcome, GenerationParams, ModelInfo, ModelKind, Provider } from './providers/provider.js';

export interface GenerationRequest {
  /** A model id (`local/keel-tiny-chat`, `endpoint:lab/gpt-4o`, a bare local name, `default`); omitted means the default. */
  model?: string;
  params?: Partial<GenerationParams>;
}

export interface Resolved {
  /** The full model id that ran. */
  model: string;
  provider: string;
}

export class InferenceService {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly settings: ApiSettings,
    private readonly defaultTemperature: number,
    /** The per-request bounds; the `/v1` routes check them too, before a stream opens. */
    readonly limits: InputLimits,
  ) {}

  resolve(account: string, model: string | undefined, kind: ModelKind): Promise<ResolvedModel> {
    return this.registry.resolve(account, model ?? 'default', kind);
  }

  async chat(account: string, request: GenerationRequest & { messages: ChatMessage[] }, options: CallOptions = {}): Promise<GenerationOutcome & Resolved> {
    return this.chatOn(await this.resolve(account, request.model, 'chat'), request.messages, request.params, options);
  }

  /** Chat with a model already resolved (callers that report the model before generating). */
  async chatOn(target: ResolvedModel, messages: ChatMessage[], params: Partial<GenerationParams> | undefined, options: CallOptions = {}): Promise<GenerationOutcome & Resolved> {
    this.limits.chat(messages);
    const outcome = await target.provider.chat(target.model, messages, this.params(params), options);
    return { ...outcome, model: target.id, provider: target.provider.info.name };
  }

  async complete(account: string, request: GenerationRequest & { prompt: string }, options: CallOptions = {}): Promise<GenerationOutcome & Resolved> {
    return this.completeOn(await this.resolve(account, request.model, 'chat'), request.prompt, request.params, options);
  }

  async completeOn(target: ResolvedModel, prompt: string, params: Partial<GenerationParams> | undefined, options: CallOptions = {}): Promise<GenerationOutcome & Resolved> {
    this.limits.prompts([prompt]);
    const outcome = await target.provider.complete(target.model, prompt, this.params(params), options);
    return { ...outcome, model: target.id, provider: target.provider.info.name };
  }

  async embed(account: string, request: { model?: string; inputs: string[] }, options: { signal?: AbortSignal } = {}): Promise<EmbeddingOutcome & Resolved> {
    return this.embedOn(await this.resolve(account, request.model, 'embedding'), request.inputs, options);
  }

  async embedOn(target: ResolvedModel, inputs: string[], options: { signal?: AbortSignal } = {}): Promise<EmbeddingOutcome & Resolved> {
    this.limits.inputs(inputs);
    const outcome = await target.provider.embed(target.model, inputs, options);
    return { ...outcome, model: target.id, provider: target.provider.info.name };
  }

  providers(account: string): Provider[] {
    return this.registry.providersFor(account);
  }

  provider(account: string, name: string): Provider | null {
    return this.registry.provider(account, name);
  }

  /** Every model the account can use; a remote catalog that fails to answer is left out. */
  async listModels(account: string): Promise<ModelInfo[]> {
    const lists = await Promise.all(this.providers(account).map((p) => p.listModels().catch(() => [] as ModelInfo[])));
    return lists.flat();
  }

  /**
   * `model_residency`: the local models loaded in the engine (`list`), or load / unload one (a
   * model id; omitted: the default chat model). Only local models have a residency Keel controls:
   * a model of another provider is refused with a sentence saying so.
   */
  async residency(account: string, action: 'list' | 'load' | 'unload', model?: string): Promise<{ loaded: string[]; changed: boolean; model: string | null }> {
    const local = this.registry.provider(account, LOCAL_PROVIDER) as LocalProvider | null;
    if (!local) throw badRequest('There is no local provider on this server, so no model residency to manage.', { code: 'residency_unsupported' });
    if (action === 'list') {
      const listed = await local.residency('list');
      return { loaded: listed.loaded.map((n) => `${LOCAL_PROVIDER}/${n}`), changed: false, model: null };
    }
    const target = await this.resolve(account, model, 'chat');
    if (target.provider !== local) {
      throw badRequest(`The model '${echoId(target.id)}' runs on the provider '${target.provider.info.name}', whose residency Keel does not control; model_residency loads and unloads local models only.`, { code: 'residency_unsupported' });
    }
    const done = await local.residency(action, target.model);
    return { loaded: done.loaded.map((n) => `${LOCAL_PROVIDER}/${n}`), changed: done.changed, model: target.id };
  }

  defaults(): { chat: string; embedding: string } {
    const s = this.settings.get();
    return { chat: s.default_chat_model, embedding: s.default_embedding_model };
  }

  private params(params: Partial<GenerationParams> = {}): GenerationParams {
    return { ...params, temperature: params.temperature ?? this.defaultTemperature };
  }
}
