/**
 * The channel between a separate runner (`keel runner`) and the server (`keel serve --no-runner`),
 * through files under `<data>/live/` (seed 000 §6 rule 8), readable by the owner only:
 * - `<root_run_id>.jsonl`: the runner's appends, deltas and ends for one run tree, one JSON per
 *   line; deleted when the root run ends; stale ones are removed when a runner starts.
 * - `_wake.jsonl`: the server's nudges to the runner (a run started, a command queued).
 * Readers follow the files with fs.watch and read only what was appended since their offset.
 */
import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

export const WAKE_FILE = '_wake.jsonl';

export class LiveFiles {
  private readonly offsets = new Map<string, number>();
  private watcher: FSWatcher | null = null;

  /** `onError` hears what following a file failed on (a line that is not JSON, a handler that threw): it runs in a watcher callback, where a throw would end the process. */
  constructor(readonly dir: string, private readonly onError: (file: string, err: unknown) => void = () => {}) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  write(file: string, message: unknown): void {
    appendFileSync(path.join(this.dir, file), JSON.stringify(message) + '\n', { mode: 0o600 });
  }

  remove(file: string): void {
    rmSync(path.join(this.dir, file), { force: true });
    this.offsets.delete(file);
  }

  /** Removes every file (a runner starting fresh: any file left is from a run a crash interrupted). */
  clear(): void {
    for (const name of readdirSync(this.dir)) rmSync(path.join(this.dir, name), { force: true });
  }

  /**
   * Calls `onLine` for each new line of the files `accept` picks, as they grow. With `replay`, the
   * lines already in existing files come first (a server started while a separate runner is mid-run
   * rebuilds its in-flight calls' text from them, so late subscribers get the whole snapshot).
   */
  follow(accept: (file: string) => boolean, onLine: (file: string, message: unknown) => void, onGone?: (file: string) => void, replay = false): void {
    const drain = (file: string) => {
      let fd: number;
      try {
        // Opened, then measured on the descriptor: the runner deletes a run's file when the run ends, at any moment.
        fd = openSync(path.join(this.dir, file), 'r');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        if (this.offsets.delete(file)) onGone?.(file);
        return;
      }
      try {
        const size = fstatSync(fd).size;
        const from = this.offsets.get(file) ?? 0;
        if (size <= from) return;
        const buf = Buffer.alloc(size - from);
        readSync(fd, buf, 0, buf.length, from);
        const text = buf.toString('utf8');
        const lastNewline = text.lastIndexOf('\n');
        if (lastNewline < 0) return;
        this.offsets.set(file, from + Buffer.byteLength(text.slice(0, lastNewline + 1)));
        for (const line of text.slice(0, lastNewline).split('\n')) {
          if (!line) continue;
          try {
            onLine(file, JSON.parse(line));
          } catch (err) {
            // One bad line (or a handler's error) costs that line only, not the lines after it.
            this.onError(file, err);
          }
        }
      } finally {
        closeSync(fd);
      }
    };
    const existing = readdirSync(this.dir).filter(accept);
    const drainSafely = (file: string) => {
      try {
        drain(file);
      } catch (err) {
        this.onError(file, err);
      }
    };
    if (!replay) {
      for (const name of existing) {
        try {
          this.offsets.set(name, statSync(path.join(this.dir, name)).size);
        } catch {
          // Deleted since the listing: its run ended, nothing to follow.
        }
      }
    }
    this.watcher = watch(this.dir, (_event, name) => {
      if (name && accept(name)) drainSafely(name);
    });
    this.watcher.unref();
    if (replay) for (const name of existing) drainSafely(name);
  }

  stop(): void {
    this.watcher?.close();
    this.watcher = null;
  }
}
