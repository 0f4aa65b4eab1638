/**
 * Follows the files of a folder as they grow (`<data>/live/`): fs.watch says which file changed,
 * and only what was appended since the last read is read, whole lines only. A file that is deleted
 * while followed is reported once (the run tree it carried has ended).
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

export class LiveFileFollower {
  private readonly offsets = new Map<string, number>();
  private watcher: FSWatcher | null = null;

  /** `onError` hears what following a file failed on (a line that is not JSON, a handler that threw): it runs in a watcher callback, where a throw would end the process. */
  constructor(readonly dir: string, private readonly onError: (file: string, err: unknown) => void) {}

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
    // A watcher's error (its folder removed under it) is reported, never thrown: unheard, it would end the process.
    this.watcher.on('error', (err) => this.onError(this.dir, err));
    this.watcher.unref();
    if (replay) for (const name of existing) drainSafely(name);
  }

  stop(): void {
    this.watcher?.close();
    this.watcher = null;
  }
}
