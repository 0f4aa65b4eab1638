/**
 * The local provider's models: GGUF files and transformers.js folders found in the configured
 * folders, plus models named one by one in the config. Folders are rescanned on each listing
 * (a readdir is cheap) so a model dropped into a folder appears without a restart; GGUF headers
 * are read once per file version.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { readModelInfo, type ModelInfo as GgufInfo } from '@keel/engine-llama';
import type { LocalModelConfig } from '../config.js';

export interface LocalModelEntry {
  name: string;
  path: string;
  engine: 'llama' | 'onnx';
  contextSize?: number;
  /** False when a configured model's file is missing (calls explain how to get it). */
  present: boolean;
  gguf?: GgufInfo | null;
}

export class LocalModelCatalog {
  private readonly headerCache = new Map<string, { mtimeMs: number; info: GgufInfo | null }>();

  constructor(private readonly dirs: string[], private readonly explicit: LocalModelConfig[]) {}

  get folders(): readonly string[] {
    return this.dirs;
  }

  private cached: { at: number; entries: Promise<LocalModelEntry[]> } | null = null;

  /** Forgets the last scan, so a model just added is listed by the next call. */
  invalidate(): void {
    this.cached = null;
  }

  /** The models, rescanned at most once a second (requests look models up on the hot path). */
  list(): Promise<LocalModelEntry[]> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at > 1000) this.cached = { at: now, entries: this.scan() };
    return this.cached.entries;
  }

  private async scan(): Promise<LocalModelEntry[]> {
    const byName = new Map<string, LocalModelEntry>();
    for (const m of this.explicit) {
      const present = existsSync(m.path);
      byName.set(m.id, { name: m.id, path: m.path, engine: isOnnxFolder(m.path) ? 'onnx' : 'llama', contextSize: m.contextSize, present });
    }
    for (const dir of this.dirs) {
      for (const entry of scanFolder(dir)) if (!byName.has(entry.name)) byName.set(entry.name, entry);
    }
    const out = [...byName.values()];
    await Promise.all(out.map(async (e) => (e.gguf = e.engine === 'llama' && e.present ? await this.header(e.path) : null)));
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  async find(name: string): Promise<LocalModelEntry | null> {
    return (await this.list()).find((m) => m.name === name) ?? null;
  }

  private async header(file: string): Promise<GgufInfo | null> {
    const mtimeMs = statSync(file).mtimeMs;
    const cached = this.headerCache.get(file);
    if (cached && cached.mtimeMs === mtimeMs) return cached.info;
    const info = await readModelInfo(file).catch(() => null);
    this.headerCache.set(file, { mtimeMs, info });
    return info;
  }
}

function scanFolder(dir: string): LocalModelEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const out: LocalModelEntry[] = [];
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const full = path.join(dir, name);
    if (name.endsWith('.gguf')) {
      out.push({ name: name.slice(0, -'.gguf'.length), path: full, engine: 'llama', present: true });
    } else if (isDirectory(full)) {
      if (isOnnxFolder(full)) {
        out.push({ name, path: full, engine: 'onnx', present: true });
        continue;
      }
      // A model folder with its GGUF inside (and a MODEL.md beside it, say).
      for (const inner of safeReaddir(full).sort()) {
        if (inner.endsWith('.gguf')) out.push({ name: inner.slice(0, -'.gguf'.length), path: path.join(full, inner), engine: 'llama', present: true });
      }
    }
  }
  return out;
}

function isOnnxFolder(dir: string): boolean {
  return existsSync(path.join(dir, 'config.json')) && (existsSync(path.join(dir, 'onnx', 'model.onnx')) || existsSync(path.join(dir, 'model.onnx')));
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
