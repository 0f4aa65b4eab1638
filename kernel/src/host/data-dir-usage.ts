/**
 * How much disk the data directory takes, per top-level folder, as `du` counts it (allocated
 * blocks: LMDB's map file is sparse, its apparent size says little). The walk is bounded by
 * `dataScanMaxEntries` and reused for `dataScanCacheMs`, so a dashboard polling `/host/status` never
 * walks a large blob store on every request. Links are counted, never followed.
 */
import { lstat, opendir } from 'node:fs/promises';
import path from 'node:path';
import type { HostStatusConfig } from '../config/kernel-config.js';

export interface FolderUsage {
  name: string;
  bytes: number;
  files: number;
}

export interface DataDirUsage {
  bytes: number;
  files: number;
  /** Top-level entries of the data directory, largest first. */
  folders: FolderUsage[];
  /** False when the walk stopped at `dataScanMaxEntries`: the figures are lower bounds. */
  complete: boolean;
  measured_at: string;
}

export class DataDirUsageMeter {
  private cached: { at: number; usage: Promise<DataDirUsage> } | undefined;

  constructor(private readonly dataDir: string, private readonly settings: HostStatusConfig) {}

  /** The latest summary no older than `dataScanCacheMs` (callers during a walk share it). */
  measure(): Promise<DataDirUsage> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at > this.settings.dataScanCacheMs) {
      const usage = this.walk();
      this.cached = { at: now, usage };
      // A failed walk is not kept: the next request tries again.
      usage.catch(() => (this.cached = undefined));
    }
    return this.cached.usage;
  }

  private async walk(): Promise<DataDirUsage> {
    const budget: Budget = { left: this.settings.dataScanMaxEntries, cut: false };
    const folders: FolderUsage[] = [];
    const top = await opendir(this.dataDir);
    for await (const entry of top) {
      if (budget.left <= 0) {
        budget.cut = true;
        break;
      }
      const usage = { name: entry.name, bytes: 0, files: 0 };
      await addUsage(path.join(this.dataDir, entry.name), usage, budget);
      folders.push(usage);
    }
    folders.sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
    return {
      bytes: folders.reduce((sum, f) => sum + f.bytes, 0),
      files: folders.reduce((sum, f) => sum + f.files, 0),
      folders,
      complete: !budget.cut,
      measured_at: new Date().toISOString(),
    };
  }
}

/** Entries the walk may still visit; `cut` once it had to leave one out. */
interface Budget {
  left: number;
  cut: boolean;
}

/** Adds `full` (and, for a folder, what is below it) to `usage`, one entry of the budget each. */
async function addUsage(full: string, usage: { bytes: number; files: number }, budget: Budget): Promise<void> {
  // Depth first with an explicit stack: a deep tree cannot exhaust the call stack, and a huge
  // folder adds no more names than the budget has room for.
  const stack = [full];
  while (stack.length) {
    if (budget.left <= 0) {
      budget.cut = true;
      return;
    }
    const at = stack.pop()!;
    budget.left -= 1;
    let info;
    try {
      info = await lstat(at);
    } catch {
      continue; // removed meanwhile
    }
    usage.bytes += info.blocks * 512;
    if (!info.isDirectory()) {
      usage.files += 1;
      continue;
    }
    try {
      const dir = await opendir(at);
      for await (const entry of dir) {
        if (stack.length >= budget.left) {
          budget.cut = true;
          break;
        }
        stack.push(path.join(at, entry.name));
      }
    } catch {
      // unreadable or removed meanwhile: its own size is counted, its contents are not
    }
  }
}
