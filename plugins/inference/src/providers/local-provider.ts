/** The `local` provider: models on this machine, run by the llama and onnx engines in worker threads. */
import { EngineError, type LlamaEngine } from '@keel/engine-llama';
import { OnnxEngineError, type OnnxEngine } from '@keel/engine-onnx';
import { badRequest, HttpError, notFound, serviceUnavailable } from '@keel/plugin-sdk';
import type { LocalModelCatalog, LocalModelEntry } from './local-model-catalog.js';
import type { CallOptions, ChatMessage, EmbeddingOutcome, GenerationOutcome, GenerationParams, ModelInfo, Provider, ProviderInfo } from './provider.js';
import { echoId } from '../echo-id.js';

export const LOCAL_PROVIDER = 'local';

export class LocalProvider implements Provider {
  readonly info: ProviderInfo = { name: LOCAL_PROVIDER, kind: 'local', label: 'Models on this machine', catalog: 'local_folder' };

  constructor(
    private readonly catalog: LocalModelCatalog,
    private readonly llama: LlamaEngine,
    private readonly onnx: OnnxEngine,
    /** Where a user should put models, for error messages. */
    private readonly modelsHint: string,
  ) {}

  async listModels(): Promise<ModelInfo[]> {
    return (await this.catalog.list()).map((m) => this.describe(m));
  }

  async findModel(name: string): Promise<ModelInfo | null> {
    const entry = await this.catalog.find(name);
    return entry ? this.describe(entry) : null;
  }

  async check(model: string): Promise<void> {
    await this.entry(model);
  }

  async chat(model: string, messages: ChatMessage[], params: GenerationParams, options: CallOptions): Promise<GenerationOutcome> {
    const entry = await this.generative(model);
    return this.engineCall(entry, () => this.llama.chat(entry.path, messages, params, options));
  }

  async complete(model: string, prompt: string, params: GenerationParams, options: CallOptions): Promise<GenerationOutcome> {
    const entry = await this.generative(model);
    return this.engineCall(entry, () => this.llama.complete(entry.path, prompt, params, options));
  }

  async embed(model: string, inputs: string[]): Promise<EmbeddingOutcome> {
    const entry = await this.entry(model);
    const result = await this.engineCall(entry, () => (entry.engine === 'onnx' ? this.onnx.embed(entry.path, inputs) : this.llama.embed(entry.path, inputs)));
    return { vectors: result.vectors, usage: result.usage };
  }

  /**
   * Which local models the llama engine holds open (names), or opens / closes `model` ahead of use.
   * `changed`: the action opened or closed it (false for a model already open, or not open).
   */
  async residency(action: 'list' | 'load' | 'unload', model?: string): Promise<{ loaded: string[]; changed: boolean }> {
    const entry = model === undefined ? null : await this.generative(model);
    const result = entry ? await this.engineCall(entry, () => this.llama.residency(action, entry.path)) : await this.llama.residency('list');
    const byPath = new Map((await this.catalog.list()).map((m) => [m.path, m.name]));
    return { loaded: result.loaded.map((p) => byPath.get(p) ?? p), changed: result.changed };
  }

  private async entry(model: string): Promise<LocalModelEntry> {
    const entry = await this.catalog.find(model);
    if (!entry) throw notFound(`The model '${echoId(`local/${model}`)}' does not exist.`, { code: 'model_not_found', field: 'body.model' });
    if (!entry.present) throw this.missingFile(entry);
    return entry;
  }

  private async generative(model: string): Promise<LocalModelEntry> {
    const entry = await this.entry(model);
    if (entry.engine !== 'llama') throw badRequest(`The model '${echoId(`local/${model}`)}' is an embedding model; it cannot generate text.`, { code: 'model_not_supported', field: 'body.model' });
    return entry;
  }

  private async engineCall<T>(entry: LocalModelEntry, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof EngineError || err instanceof OnnxEngineError) {
        if (err.code === 'model_not_found') throw this.missingFile(entry);
        if (err.code === 'invalid_schema') throw badRequest(err.message, { code: 'invalid_schema', field: 'body.response_format' });
        if (err.code === 'context_overflow') throw badRequest(`The request does not fit the model's context: ${err.message}`, { code: 'context_length_exceeded', field: 'body.messages' });
        throw new HttpError(500, `The ${entry.engine} engine failed on 'local/${entry.name}': ${err.message}`, { code: err.code, cause: err });
      }
      throw err;
    }
  }

  private missingFile(entry: LocalModelEntry): HttpError {
    return serviceUnavailable(
      `The model file for 'local/${entry.name}' is missing: ${entry.path}. Put a GGUF model there (or in ${this.modelsHint}), ` +
        `for example with: npx node-llama-cpp pull --dir ${this.modelsHint} <model URL>, or as an admin with POST /api/gateway/models/download.`,
      { code: 'model_file_missing' },
    );
  }

  private describe(m: LocalModelEntry): ModelInfo {
    return {
      id: `${LOCAL_PROVIDER}/${m.name}`,
      name: m.name,
      provider: LOCAL_PROVIDER,
      kinds: m.engine === 'onnx' ? ['embedding'] : ['chat', 'embedding'],
      engine: m.engine,
      context_length: m.gguf?.contextLength ?? null,
      ...(m.present ? {} : { description: `missing file ${m.path}` }),
    };
  }
}
