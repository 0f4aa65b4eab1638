/**
 * The quota of a root run's workspace folder (gateway-runs settings `workspace.maxFolderBytes`,
 * `maxFolderEntries`, `maxPathDepth`): what the file tools may create there in total.
 *
 * The usage (entries and file bytes) is a record in memory, per run folder, that is measured when it
 * is missing: after a start, after a write that failed half-way, and when older than a minute (so a
 * change made by hand is seen). The measure is a walk that stops as soon as the folder is over a
 * limit, so it visits at most `maxFolderEntries + 1` entries; between measures each write adds what it
 * changed. Nothing is written to disk, so a crash loses nothing: the next start measures again. The
 * record is exact because only the file tools write run folders, one runner per data directory runs
 * them, and writes to one folder are serialised here. It lives with the runtime's file tools (RunTools),
 * so a new gateway on the same data directory measures afresh. A write that does not grow the folder
 * (the same or smaller content into an existing file) is never refused. Writes outside the run
 * folder (an admin's run under the gateway policy) are not charged here; only the depth cap applies
 * to the folders they create.
 */
import { formatBytes } from '@keel/plugin-sdk';
import { lstat, opendir } from 'node:fs/promises';
import path from 'node:path';
import { inside, ToolRefusal } from '@keel/plugin-workspaces';

export interface FolderQuota {
  /** Total bytes of the files in a root run's folder. */
  maxFolderBytes: number;
  /** Files and folders in a root run's folder (the marker not counted). */
  maxFolderEntries: number;
  /** Path components below the run folder a tool may create (outside it: folders one write creates). */
  maxPathDepth: number;
}

/** Files whose sizes are asked for at once during a measure (the system answers them in parallel). */
const STAT_BATCH = 64;
/** How long a measured usage is trusted before the folder is measured again. */
const REMEASURE_MS = 60_000;

interface Usage {
  entries: number;
  bytes: number;
  measuredAt: number;
}

/** What a checked write does to the record once it is done: `ok` false when it may have half-happened. */
export type Settle = (ok: boolean) => void;

/** The usage records and write queues of the run folders of one gateway (one per RunTools). */
export class FolderUsage {
  /** The usage of the run folders written since this gateway started (dropped when stale). */
  private readonly usages = new Map<string, Usage>();
  private readonly queues = new Map<string, Promise<unknown>>();

  /** Runs `work` after every earlier write to the same run folder has finished. */
  async serialised<T>(root: string, work: () => Promise<T>): Promise<T> {
    const before = this.queues.get(root) ?? Promise.resolve();
    const mine = before.then(work, work);
    const settled = mine.then(() => undefined, () => undefined);
    this.queues.set(root, settled);
    try {
      return await mine;
    } finally {
      if (this.queues.get(root) === settled) this.queues.delete(root);
    }
  }

  /**
   * Refuses, with a sentence, a write of `newSize` bytes to `real` (shown as `shown`) that would take
   * the run folder `root` past its quota or create a path deeper than allowed; else answers what to
   * call once the write is done. Call it inside `serialised(root, …)`. `ignore` is the marker file.
   */
  async chargeWrite(root: string, real: string, shown: string, newSize: number, quota: FolderQuota, ignore: string, signal: AbortSignal): Promise<Settle> {
    const charged = inside(real, root);
    const depth = charged ? path.relative(root, real).split(path.sep).length : 0;
    if (depth > quota.maxPathDepth) throw tooDeep(shown, depth, quota);
    const { missingFolders, oldSize, exists } = await growthOf(real, charged ? root : path.parse(real).root);
    if (!charged) {
      if (missingFolders > quota.maxPathDepth) throw tooDeep(shown, missingFolders, quota);
      return () => undefined;
    }
    const added = { entries: missingFolders + (exists ? 0 : 1), bytes: newSize - oldSize };
    if (added.entries > 0 || added.bytes > 0) {
      // A folder already over a limit (measure stopped) refuses every growth with that limit's sentence.
      const usage = await this.usageOf(root, quota, ignore, signal);
      if (usage === 'entries' || (usage !== 'bytes' && added.entries > 0 && usage.entries + added.entries > quota.maxFolderEntries)) throw fullOfEntries(shown, quota);
      if (usage === 'bytes' || (added.bytes > 0 && usage.bytes + added.bytes > quota.maxFolderBytes)) throw fullOfBytes(shown, quota);
    }
    return (ok) => {
      const usage = this.usages.get(root);
      if (!usage) return;
      if (!ok) this.usages.delete(root);
      else Object.assign(usage, { entries: usage.entries + added.entries, bytes: usage.bytes + added.bytes });
    };
  }

  /** The folder's usage, measured when not known or stale; the limit it is already over, if any. */
  private async usageOf(root: string, quota: FolderQuota, ignore: string, signal: AbortSignal): Promise<Usage | 'entries' | 'bytes'> {
    const known = this.usages.get(root);
    if (known && Date.now() - known.measuredAt < REMEASURE_MS) return known;
    for (const [folder, usage] of this.usages) if (Date.now() - usage.measuredAt >= REMEASURE_MS) this.usages.delete(folder);
    const measured = await measure(root, quota, ignore, signal);
    if (typeof measured === 'string') return measured;
    const usage = { ...measured, measuredAt: Date.now() };
    this.usages.set(root, usage);
    return usage;
  }
}

/** The folders a write to `real` creates (up to `stop`), and the size of the file it replaces. */
async function growthOf(real: string, stop: string): Promise<{ missingFolders: number; oldSize: number; exists: boolean }> {
  const old = await lstat(real).catch(() => null);
  let missingFolders = 0;
  for (let dir = path.dirname(real); dir !== stop && dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (await lstat(dir).then(() => true, () => false)) break;
    missingFolders += 1;
  }
  return { missingFolders, oldSize: old?.isFile() ? old.size : 0, exists: old !== null };
}

/** Walks `root` (links not followed) and counts; stops with the limit it passes, if it passes one. */
async function measure(root: string, quota: FolderQuota, ignore: string, signal: AbortSignal): Promise<{ entries: number; bytes: number } | 'entries' | 'bytes'> {
  let entries = 0;
  let bytes = 0;
  const folders = [root];
  while (folders.length) {
    const folder = folders.pop()!;
    const files: string[] = [];
    const sizeFiles = async () => {
      const sizes = await Promise.all(files.splice(0).map((f) => lstat(f).then((st) => st.size, () => 0)));
      for (const size of sizes) bytes += size;
    };
    for await (const entry of await opendir(folder, { bufferSize: 128 })) {
      if (signal.aborted) throw signal.reason ?? new Error('aborted');
      const full = path.join(folder, entry.name);
      if (full === ignore) continue;
      if (++entries > quota.maxFolderEntries) return 'entries';
      if (entry.isDirectory()) folders.push(full);
      else if (entry.isFile()) files.push(full);
      if (files.length >= STAT_BATCH) await sizeFiles();
      if (bytes > quota.maxFolderBytes) return 'bytes';
    }
    await sizeFiles();
    if (bytes > quota.maxFolderBytes) return 'bytes';
  }
  return { entries, bytes };
}

function tooDeep(shown: string, depth: number, quota: FolderQuota): ToolRefusal {
  return new ToolRefusal(`${shown} is ${depth} folders deep, over the ${quota.maxPathDepth} a file tool may create (gateway-runs setting workspace.maxPathDepth); use a shorter path.`);
}

function fullOfEntries(shown: string, quota: FolderQuota): ToolRefusal {
  return new ToolRefusal(`${shown} was not written: this run's workspace folder would hold more than ${quota.maxFolderEntries} files and folders (gateway-runs setting workspace.maxFolderEntries); replace an existing file instead of creating new ones.`);
}

function fullOfBytes(shown: string, quota: FolderQuota): ToolRefusal {
  return new ToolRefusal(`${shown} was not written: this run's workspace folder would hold more than ${formatBytes(quota.maxFolderBytes)} (gateway-runs setting workspace.maxFolderBytes); write less, or replace a file with smaller content.`);
}
