/**
 * What the local engines are and their state: whether each engine's runtime is installed, its
 * worker threads, the models it runs (loaded, available, missing, downloading). Loaded models
 * come from the llama workers themselves; a pool with no live thread holds no model, so a status
 * read never starts a worker just to answer "nothing".
 */
import { createRequire } from 'node:module';
import { llamaWorkerFile } from '@keel/engine-llama';
import { onnxWorkerFile } from '@keel/engine-onnx';
import type { WorkerPool } from '@keel/plugin-sdk';
import type { DownloadManager } from '../downloads/download-manager.js';
import type { LocalModelCatalog } from '../providers/local-model-catalog.js';
import type { LocalProvider } from '../providers/local-provider.js';

export type EngineName = 'llama' | 'onnx';
export const ENGINE_NAMES: readonly EngineName[] = ['llama', 'onnx'];

interface EngineSpec {
  label: string;
  runtime: string;
  workerFile: URL;
  formats: string[];
  kinds: string[];
  /** Whether models can be opened and closed ahead of use (POST /engines/{engine}/load|unload). */
  residency: boolean;
}

const SPECS: Record<EngineName, EngineSpec> = {
  llama: { label: 'llama.cpp', runtime: 'node-llama-cpp', workerFile: llamaWorkerFile, formats: ['gguf'], kinds: ['chat', 'completion', 'embedding'], residency: true },
  onnx: { label: 'ONNX Runtime (transformers.js)', runtime: 'onnxruntime-node', workerFile: onnxWorkerFile, formats: ['onnx'], kinds: ['embedding'], residency: false },
};

/** How long a status read waits for a busy llama worker to say which models it holds. */
const LOADED_WAIT_MS = 2000;

export class EngineStatus {
  private readonly installed = new Map<EngineName, string | null>();

  constructor(
    private readonly catalog: LocalModelCatalog,
    private readonly local: LocalProvider,
    private readonly pools: Record<EngineName, WorkerPool>,
    private readonly downloads: DownloadManager,
  ) {}

  spec(engine: EngineName): EngineSpec {
    return SPECS[engine];
  }

  /** Null when the engine's runtime package is installed, else the sentence saying it is not. */
  unavailableReason(engine: EngineName): string | null {
    if (!this.installed.has(engine)) {
      const spec = SPECS[engine];
      let reason: string | null = null;
      try {
        createRequire(spec.workerFile).resolve(spec.runtime);
      } catch {
        reason = `The ${spec.label} engine needs the package ${spec.runtime}, which is not installed.`;
      }
      this.installed.set(engine, reason);
    }
    return this.installed.get(engine)!;
  }

  /** Names of the llama models the workers hold open, or null when the workers are too busy to say. */
  private async loadedLlama(): Promise<string[] | null> {
    if (this.pools.llama.threads.length === 0) return [];
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), LOADED_WAIT_MS)));
    try {
      return await Promise.race([this.local.residency('list').then((r) => r.loaded), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async view(engine: EngineName) {
    const spec = SPECS[engine];
    const unavailable = this.unavailableReason(engine);
    const pool = this.pools[engine];
    const loaded = engine === 'llama' && !unavailable ? await this.loadedLlama() : engine === 'llama' ? [] : null;
    const entries = (await this.catalog.list()).filter((m) => m.engine === engine);
    const models = entries.map((m) => ({
      id: `local/${m.name}`,
      state: !m.present ? 'missing' : loaded?.includes(m.name) ? 'loaded' : 'available',
      context_length: m.gguf?.contextLength ?? null,
    }));
    for (const d of this.downloads.activeFor(engine)) {
      if (!models.some((m) => m.id === `local/${d.model}`)) models.push({ id: `local/${d.model}`, state: 'downloading', context_length: null });
    }
    return {
      engine,
      label: spec.label,
      runtime: spec.runtime,
      available: unavailable === null,
      unavailable_reason: unavailable,
      formats: spec.formats,
      kinds: spec.kinds,
      residency: spec.residency,
      workers: { max: pool.options.maxThreads, live: pool.threads.length, queued: pool.queueSize },
      // onnx keeps a model open once it has embedded with it; it does not report which (null).
      loaded: loaded === null ? null : loaded.map((name) => `local/${name}`),
      models,
    };
  }
}
