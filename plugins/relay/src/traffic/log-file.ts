/**
 * The hour file the traffic log appends to (reference §5.1, §5.4): opened for appending only
 * through real folders, never through a symlink, never when another name shares it (a hard link);
 * closed when its path stops naming it (renamed, replaced); renamed to `DD-HH.<32 hex>.log` when
 * full. Only the traffic log's serial queue calls it, so no two operations overlap.
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { rotatedPath } from './log-layout.js';

interface OpenFile {
  path: string;
  handle: FileHandle;
  ino: number;
  size: number;
}

export class LogFile {
  private file: OpenFile | null = null;

  /** The open file's path, or null. */
  get path(): string | null {
    return this.file?.path ?? null;
  }

  /** The open file's size in bytes (0 when none is open). */
  get size(): number {
    return this.file?.size ?? 0;
  }

  get isOpen(): boolean {
    return this.file !== null;
  }

  /**
   * Opens `target` for appending unless it is open: the year and month folders must be real
   * folders, the file is never followed if it is a symlink and must have exactly one link.
   * Answers whether the file was new (empty).
   */
  async open(target: string): Promise<boolean> {
    if (this.file?.path === target) return false;
    await this.close();
    const monthDir = path.dirname(target);
    await mkdir(monthDir, { recursive: true, mode: 0o700 });
    for (const dir of [path.dirname(monthDir), monthDir]) {
      const s = await lstat(dir);
      if (!s.isDirectory()) throw new Error(`${dir} is a symlink or not a folder; traffic logs are never written through one`);
    }
    const handle = await open(target, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
    try {
      const s = await handle.stat();
      if (!s.isFile()) throw new Error(`${target} is not a regular file`);
      if (s.nlink !== 1) throw new Error(`${target} has ${s.nlink} hard links; traffic logs are never written to a shared file`);
      this.file = { path: target, handle, ino: s.ino, size: s.size };
      return s.size === 0;
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
  }

  /** Appends `text` (whole lines). Throws on a storage error, after closing the file. */
  async append(text: string): Promise<void> {
    const file = this.file;
    if (!file) throw new Error('the log file is not open');
    try {
      await file.handle.appendFile(text);
      file.size += text.length;
    } catch (err) {
      await this.close();
      throw new Error(`cannot append to ${file.path}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Closes the open file if its path no longer names it (renamed, replaced, hard-linked by someone else). */
  async check(): Promise<void> {
    const file = this.file;
    if (!file) return;
    try {
      const s = await lstat(file.path);
      if (s.ino === file.ino && s.nlink === 1 && s.isFile()) return;
    } catch {
      // gone: reopened on the next record
    }
    await this.close();
  }

  async close(): Promise<void> {
    const file = this.file;
    this.file = null;
    if (file) await file.handle.close().catch(() => undefined);
  }

  /** Renames the full open file to `DD-HH.<32 hex>.log`; the next record starts a fresh one. Answers whether it did. */
  async rotate(): Promise<boolean> {
    const file = this.file;
    if (!file) return false;
    await this.close();
    await rename(file.path, rotatedPath(file.path));
    return true;
  }

  /** Rotates `current` when it is already over `maxBytes` (a smaller limit, an older version). */
  async rotateOversized(current: string, maxBytes: number): Promise<void> {
    let size: number;
    try {
      const s = await lstat(current);
      if (!s.isFile() || s.nlink !== 1) return;
      size = s.size;
    } catch {
      return;
    }
    if (size <= maxBytes) return;
    if (this.file?.path === current) await this.close();
    await rename(current, rotatedPath(current));
  }
}
