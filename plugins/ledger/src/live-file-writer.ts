/**
 * Appends JSON lines to the files of a folder (`<data>/live/`) without blocking the publisher:
 * messages are queued per file and written asynchronously, one write per file at a time, each
 * write carrying every line queued since the last one. So a burst of token deltas costs one write,
 * not one synchronous append each, and a quiet stream still goes out on the next turn of the loop.
 * Order per file is kept, a file's removal included (it happens after the lines queued before it).
 * Files are created owner-readable only.
 */
import { appendFile, rm } from 'node:fs/promises';
import path from 'node:path';

const REMOVE = Symbol('remove');
type Op = string | typeof REMOVE;

export class LiveFileWriter {
  /** Lines (and removals) waiting, per file. */
  private readonly queued = new Map<string, Op[]>();
  /** The drain under way, per file. */
  private readonly draining = new Map<string, Promise<void>>();

  /** `onError` hears a write or removal that failed (the lines of that write are lost; live traffic is an optimisation, the ledger is the record). */
  constructor(readonly dir: string, private readonly onError: (file: string, err: unknown) => void) {}

  append(file: string, message: unknown): void {
    this.enqueue(file, `${JSON.stringify(message)}\n`);
  }

  /** Deletes the file once what was queued before has been written. */
  remove(file: string): void {
    this.enqueue(file, REMOVE);
  }

  /** Resolves once everything queued so far has been written. */
  async flush(): Promise<void> {
    while (this.draining.size) await Promise.all(this.draining.values());
  }

  private enqueue(file: string, op: Op): void {
    let ops = this.queued.get(file);
    if (!ops) this.queued.set(file, (ops = []));
    ops.push(op);
    if (this.draining.has(file)) return;
    // Started on the next turn of the loop, so what is published in this one goes in the same write.
    this.draining.set(file, new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.drain(file)));
  }

  private async drain(file: string): Promise<void> {
    const where = path.join(this.dir, file);
    for (;;) {
      const ops = this.queued.get(file);
      this.queued.delete(file);
      if (!ops) {
        // Done, in the same step as the last look at the queue: a line queued from now on starts a new drain.
        this.draining.delete(file);
        return;
      }
      let text = '';
      for (const op of ops) {
        if (op !== REMOVE) {
          text += op;
          continue;
        }
        await this.write(file, where, text);
        text = '';
        await rm(where, { force: true }).catch((err: unknown) => this.onError(file, err));
      }
      await this.write(file, where, text);
    }
  }

  /** Never throws: a failed write is reported and the drain goes on. */
  private async write(file: string, where: string, text: string): Promise<void> {
    if (!text) return;
    await appendFile(where, text, { mode: 0o600 }).catch((err: unknown) => this.onError(file, err));
  }
}
