/**
 * `@keel/plugin-inference`: local engines (llama.cpp, transformers.js) and remote
 * OpenAI-compatible endpoints behind one provider layer; discovery and endpoint profiles under
 * `/api/gateway`; the OpenAI-compatible API under `/v1` (and its deprecated `/core/v1` redirect).
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { core, definePlugin, openaiErrorFormat, token } from '@keel/plugin-sdk';
import { LlamaEngine, llamaWorkerFile } from '@keel/engine-llama';
import { OnnxEngine, onnxWorkerFile } from '@keel/engine-onnx';
import { ApiSettings } from './api-settings.js';
import { inferenceConfigSchema } from './config.js';
import { discoveryRoutes } from './discovery/discovery-routes.js';
import { CapabilityBlocks, discoveryCapabilitiesToken, type DiscoveryCapabilities } from './discovery/capability-blocks.js';
import { InferenceService } from './inference-service.js';
import { InputLimits } from './input-limits.js';
import { CallRecorder } from './openai/call-recorder.js';
import { chatCompletionsRoute } from './openai/chat-completions-route.js';
import { completionsRoute } from './openai/completions-route.js';
import { embeddingsRoute } from './openai/embeddings-route.js';
import { legacyRedirectRoutes } from './openai/legacy-redirect-routes.js';
import { AudioSlot, audioSlotRoutes, openaiAudioSlotToken, type OpenAiAudioSlot } from './openai/audio-slot.js';
import { modelsRoutes } from './openai/models-routes.js';
import { statusRoutes } from './openai/status-routes.js';
import { profileRoutes } from './profiles/profile-routes.js';
import { ProfileStore } from './profiles/profile-store.js';
import { SecretBox } from './profiles/secret-box.js';
import { LocalModelCatalog } from './providers/local-model-catalog.js';
import { LocalProvider } from './providers/local-provider.js';
import { ProviderRegistry } from './providers/provider-registry.js';
import { RemoteProvider } from './providers/remote-provider.js';
import { RequestLog } from './request-log.js';
import { DownloadManager } from './downloads/download-manager.js';
import { downloadRoutes } from './downloads/download-routes.js';
import { EngineStatus } from './engines/engine-status.js';
import { engineRoutes } from './engines/engine-routes.js';

export { InferenceService } from './inference-service.js';
export type { GenerationRequest, Resolved } from './inference-service.js';
export type { InferenceConfig } from './config.js';
export type { ChatMessage, GenerationOutcome, EmbeddingOutcome, ModelInfo, Provider, ProviderInfo, CallOptions, Channel, FinishReason } from './providers/provider.js';
export { STREAMING_BLOCK } from './discovery/discovery-routes.js';

/** The inference service: chat, completion and embeddings for an account, by model id. */
export const inferenceToken = token<InferenceService>('inference.service');
export { discoveryCapabilitiesToken, type CapabilityContributor, type DiscoveryCapabilities } from './discovery/capability-blocks.js';
export { openaiAudioSlotToken, VOICE_MISSING, type OpenAiAudioSlot } from './openai/audio-slot.js';

/** Keel's bundled models (the tiny default chat model), shipped in the repository's `models/` folder. */
export const BUNDLED_MODELS_DIR = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../models');

export const inferencePlugin = definePlugin({
  id: 'inference',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'Local engines and remote endpoints behind one provider layer, discovery, and the OpenAI-compatible /v1 API',
  configSchema: inferenceConfigSchema,
  defaultPrefix: '/api/gateway',
  guardUnmatched: true,
  commands: {
    prompt: {
      summary: 'Answer one prompt read from stdin with a local model, as a command-line model client (JSON result or stream-json events); also --version, auth status --json, models --json.',
      usage: '-p --model <id> [--system-prompt T] [--effort low|medium|high|xhigh|max] [--json-schema S] [--output-format json|stream-json] [--include-partial-messages] [--verbose] | --version | auth status [--json] | models [--json]',
      load: () => import('./cli/prompt-command.js'),
    },
  },
  mounts: {
    openai: { prefix: '/v1', errorFormat: openaiErrorFormat },
    legacy: { prefix: '/core/v1', errorFormat: openaiErrorFormat },
  },
  deps: { log: core.logger, storage: core.storage, workers: core.workers, paths: core.paths, clock: core.clock },
  provides: { inference: inferenceToken, capabilities: discoveryCapabilitiesToken, audio: openaiAudioSlotToken },
  setup({ config, deps, mounts, baseDir }) {
    const resolvePath = (p: string) => path.resolve(baseDir, p);
    const userModelsDir = path.join(deps.paths.dataDir, 'models');
    const dirs = [...config.modelsDirs.map(resolvePath), userModelsDir, ...(config.bundledModels ? [BUNDLED_MODELS_DIR] : [])];
    const catalog = new LocalModelCatalog(dirs, config.models.map((m) => ({ ...m, path: resolvePath(m.path) })));

    const llamaPool = deps.workers.create('llama', { filename: llamaWorkerFile, maxThreads: config.llama.poolThreads, minThreads: 0, idleTimeout: 300_000 });
    const onnxPool = deps.workers.create('onnx', { filename: onnxWorkerFile, maxThreads: config.onnx.poolThreads, minThreads: 0, idleTimeout: 300_000 });
    const local = new LocalProvider(
      catalog,
      new LlamaEngine(llamaPool, { threads: config.llama.threads, contextSize: config.llama.contextSize }),
      new OnnxEngine(onnxPool, { threads: config.onnx.threads, batchSize: config.onnx.batchSize }),
      userModelsDir,
    );
    for (const e of config.endpoints) {
      // Keel's own secrets (KEEL_*…KEY, …TOKEN) are taken out of the environment before plugins start.
      if (e.apiKey === undefined && e.apiKeyEnv && process.env[e.apiKeyEnv] === undefined) {
        deps.log.warn('endpoint api key variable is not set; requests go without a key (KEEL_* secret names are removed from the environment at start: use another name)', { endpoint: e.name, apiKeyEnv: e.apiKeyEnv });
      }
    }
    const configured = config.endpoints.map(
      (e) =>
        new RemoteProvider({
          info: { name: e.name, kind: 'remote', label: `${e.name} (configured endpoint)`, catalog: e.models.length ? 'allowlist' : 'live_catalog', base_url: e.baseUrl },
          baseUrl: e.baseUrl,
          apiKey: e.apiKey ?? (e.apiKeyEnv ? process.env[e.apiKeyEnv] ?? null : null),
          models: e.models,
          timeoutMs: e.timeoutMs,
          catalogTtlMs: config.catalogTtlMs,
          maxEventChars: e.maxEventChars,
        }),
    );
    const profiles = new ProfileStore(deps.storage, new SecretBox(path.join(deps.paths.dataDir, 'auth', 'secrets.key')), deps.clock);
    const settings = new ApiSettings(deps.storage, deps.clock, {
      enabled: config.openaiApi.enabled,
      default_chat_model: config.defaultChatModel,
      default_embedding_model: config.defaultEmbeddingModel,
    });
    const registry = new ProviderRegistry(local, configured, profiles, { chat: () => settings.get().default_chat_model, embedding: () => settings.get().default_embedding_model }, config.catalogTtlMs, config.aliases);
    const service = new InferenceService(registry, settings, config.generation.temperature, new InputLimits(config.inputLimits));
    const log = new RequestLog(config.openaiApi.logSize);
    const recorder = new CallRecorder(settings, log);
    const openaiPrefix = () => mounts.openai!;
    const downloads = new DownloadManager(deps.storage, userModelsDir, config.downloads, deps.clock, deps.log, () => catalog.invalidate());
    const engines = new EngineStatus(catalog, local, { llama: llamaPool, onnx: onnxPool }, downloads);

    const capabilityBlocks = new CapabilityBlocks();
    // `/v1/audio/*` and `/v1/voice/clone`: the voice plugin's when it claims the slot, else 501 with guidance.
    const audioSlot = new AudioSlot(() => settings.get().enabled);
    return {
      exports: { inference: service, capabilities: capabilityBlocks as DiscoveryCapabilities, audio: audioSlot as OpenAiAudioSlot },
      routes: [
        ...discoveryRoutes(service, openaiPrefix, () => settings.get().enabled, capabilityBlocks),
        ...profileRoutes(profiles),
        ...statusRoutes(service, settings, log, openaiPrefix, () => mounts.legacy!),
        ...modelsRoutes(service),
        chatCompletionsRoute(service, recorder),
        completionsRoute(service, recorder),
        embeddingsRoute(service, recorder),
        ...audioSlotRoutes(audioSlot),
        ...legacyRedirectRoutes(openaiPrefix),
        ...engineRoutes(engines, local),
        ...downloadRoutes(downloads, userModelsDir),
      ],
      start: async () => {
        const models = await catalog.list();
        deps.log.info('inference ready', { models: models.map((m) => m.name), folders: dirs });
        for (const m of models.filter((x) => !x.present)) deps.log.warn('configured model file is missing', { model: m.name, path: m.path });
        downloads.start();
      },
      stop: () => downloads.stop(),
    };
  },
});

export default inferencePlugin;
