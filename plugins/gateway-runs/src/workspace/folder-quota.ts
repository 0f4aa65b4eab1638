/**
 * The quota of a root run's workspace folder (gateway-runs settings `workspace.maxFolderBytes`,
 * `maxFolderEntries`, `maxPathDepth`): what the file tools may create there in total.
 *
 * Measured on demand, never recorded: before a write that would grow the folder (a new file or
 * folder, or more bytes than the file had), a walk counts the folder's entries and file bytes and
 * stops as soon as the write would pass a limit, so it visits at most `maxFolderEntries` entries.
 * There is no usage record to drift, to lose in a crash or to rebuild: the disk is the record. A
 * write that does not grow the folder (the same or smaller content) is never walked nor refused.
 * Writes to one run folder are serialised in this process, so two concurrent calls of a run tree
 * cannot both take the last room. Writes outside the run folder (an admin's run under the gateway
 * policy) are not charged here; they only get the depth cap on the folders they create.
 */
import { formatBytes } from '@keel/plugin-sdk';
import { lstat, opendir } from 'node:fs/promises';
import path from 'node:path';
import { ToolRefusal } from './checked-open.js';
import { inside } from './real-path.js';

export interface FolderQuota {
  /** Total bytes of the files in a root run's folder. */
  maxFolderBytes: number;
  /** Files and folders in a root run's folder (the marker not counted). */
  maxFolderEntries: number;
  /** Path components below the run folder a tool may create (outside it: folders one write creates). */
  maxPathDepth: number;
}

/** Files whose sizes are asked for at once during the walk (the system answers them in parallel). */
const STAT_BATCH = 64;

/**
 * Refuses, with a sentence, a write of `newSize` bytes to `real` (shown as `shown`) that would take
 * the run folder `root` past its quota or create a path deeper than allowed. `ignore` is the marker.
 */
export async function refuseOverQuota(root: string, real: string, shown: string, newSize: number, quota: FolderQuota, ignore: string, signal: AbortSignal): Promise<void> {
  const charged = inside(real, root);
  const depth = charged ? path.relative(root, real).split(path.sep).length : 0;
  if (depth > quota.maxPathDepth) throw tooDeep(shown, depth, quota);
  const { missingFolders, oldSize, exists } = await growthOf(real, charged ? root : path.parse(real).root);
  if (!charged) {
    if (missingFolders > quota.maxPathDepth) throw tooDeep(shown, missingFolders, quota);
    return;
  }
  const addedEntries = missingFolders + (exists ? 0 : 1);
  const addedBytes = newSize - oldSize;
  if (addedEntries === 0 && addedBytes <= 0) return;
  const room = { entries: quota.maxFolderEntries - addedEntries, bytes: quota.maxFolderBytes - addedBytes };
  if (room.entries < 0) throw fullOfEntries(shown, quota);
  if (room.bytes < 0) throw fullOfBytes(shown, quota);
  const over = await walkUntilOver(root, room, ignore, signal);
  if (over === 'entries') throw fullOfEntries(shown, quota);
  if (over === 'bytes') throw fullOfBytes(shown, quota);
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

/** Walks `root` (links not followed) until its entries or bytes pass `room`; null when they never do. */
async function walkUntilOver(root: string, room: { entries: number; bytes: number }, ignore: string, signal: AbortSignal): Promise<'entries' | 'bytes' | null> {
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
      if (++entries > room.entries) return 'entries';
      if (entry.isDirectory()) folders.push(full);
      else if (entry.isFile()) files.push(full);
      if (files.length >= STAT_BATCH) await sizeFiles();
      if (bytes > room.bytes) return 'bytes';
    }
    await sizeFiles();
    if (bytes > room.bytes) return 'bytes';
  }
  return null;
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

const queues = new Map<string, Promise<unknown>>();

/** Runs `work` after every earlier write to the same run folder has finished (this process). */
export async function serialised<T>(root: string, work: () => Promise<T>): Promise<T> {
  const before = queues.get(root) ?? Promise.resolve();
  const mine = before.then(work, work);
  const settled = mine.then(() => undefined, () => undefined);
  queues.set(root, settled);
  try {
    return await mine;
  } finally {
    if (queues.get(root) === settled) queues.delete(root);
  }
}
