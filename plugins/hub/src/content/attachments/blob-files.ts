/**
 * Attachment bytes on disk, stored once by their sha256: a body streams into a scratch file while
 * it is hashed and counted, then is renamed into place (write-then-rename, so a blob file is
 * either absent or complete).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { streamToNewFile } from '@keel/plugin-sdk';

export class TooLarge extends Error {}

export interface Received {
  id: string;
  size: number;
  scratch: string;
}

export class BlobFiles {
  /** The folder blobs are served from (nothing outside it is). */
  readonly blobs: string;
  private readonly scratch: string;

  constructor(root: string) {
    this.blobs = path.join(root, 'blobs');
    this.scratch = path.join(root, 'scratch');
  }

  /** A blob's path inside `blobs`: `<first two hex digits>/<id>`. */
  relativePathOf(id: string): string {
    return `${id.slice(0, 2)}/${id}`;
  }

  pathOf(id: string): string {
    return path.join(this.blobs, this.relativePathOf(id));
  }

  /** Streams `body` into a scratch file; rejects with `TooLarge` past `maxBytes` (the scratch file is removed). */
  async receive(body: Readable, maxBytes: number): Promise<Received> {
    await mkdir(this.scratch, { recursive: true });
    const scratch = path.join(this.scratch, `${Date.now()}-${randomBytes(8).toString('hex')}`);
    const hash = createHash('sha256');
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > maxBytes) return done(new TooLarge());
        hash.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await streamToNewFile(body, [meter], scratch, 0o600);
    } catch (err) {
      await rm(scratch, { force: true });
      throw err;
    }
    return { id: hash.digest('hex'), size, scratch };
  }

  /** Moves a received body into place; when the blob already exists the scratch copy is dropped. */
  async commit(received: Received): Promise<void> {
    const target = this.pathOf(received.id);
    if (await exists(target)) {
      await rm(received.scratch, { force: true });
      return;
    }
    await mkdir(path.dirname(target), { recursive: true });
    await rename(received.scratch, target);
  }

  async discard(received: Received): Promise<void> {
    await rm(received.scratch, { force: true });
  }

  /** Deletes a blob's bytes (erasure, once no channel holds it); absent is fine. */
  async remove(id: string): Promise<void> {
    await rm(this.pathOf(id), { force: true });
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
