/**
 * Content-addressed blobs of one plugin, per account: `<plugin>/accounts/<account>/blobs/<aa>/<sha256>`.
 * Bytes go to a temporary file on the same file system while they are hashed, are fsynced, and only
 * then renamed to their digest name (and the folder fsynced): a crash leaves at most a temporary file,
 * removed at the next start, never a half blob under a digest name. A blob whose name is taken is
 * the same bytes, so the second copy is simply dropped.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Transform, type TransformCallback } from 'node:stream';
import { streamToNewFile } from '@keel/plugin-sdk';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Thrown when a stream carries more bytes than its limit allowed. */
export class BlobTooLarge extends Error {
  constructor(readonly limit: number, readonly seen: number) {
    super(`more than ${limit} bytes`);
  }
}

/** Bytes written and hashed but not yet under their digest name: `commit()` or `discard()` it. */
export interface PendingBlob {
  readonly sha256: string;
  readonly size: number;
  commit(): Promise<void>;
  discard(): Promise<void>;
}

export class BlobStore {
  /**
   * @param folderOf the account's own folder (the kernel's `paths.forAccount`)
   * @param tmpDir scratch folder on the same file system (emptied at start)
   */
  constructor(private readonly folderOf: (account: string) => string, private readonly tmpDir: string) {}

  /**
   * Removes temporary files a crash left behind (never renamed, so nothing refers to them). Another
   * process on the same data directory (a `keel runner` beside the server) may be writing its own:
   * a temporary name starts with its writer's pid, and only files of this process's pid (left by an
   * earlier process that had it) or of a pid no longer alive are removed.
   */
  async sweep(): Promise<void> {
    await mkdir(this.tmpDir, { recursive: true, mode: 0o700 });
    for (const name of await readdir(this.tmpDir)) {
      const pid = Number.parseInt(name.split('.')[0]!, 10);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) continue;
      await rm(path.join(this.tmpDir, name), { force: true });
    }
  }

  /** The folder every blob of the account lives under (the `root` to serve blobs from). */
  rootOf(account: string): string {
    return path.join(this.folderOf(account), 'blobs');
  }

  /** The blob's path relative to `rootOf(account)`. */
  relativePath(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a sha256 digest: '${sha256}'`);
    return `${sha256.slice(0, 2)}/${sha256}`;
  }

  /** The blob's bytes as a stream (the record that names it was read first). */
  open(account: string, sha256: string): Readable {
    return createReadStream(path.join(this.rootOf(account), this.relativePath(sha256)));
  }

  async exists(account: string, sha256: string): Promise<boolean> {
    try {
      return (await stat(path.join(this.rootOf(account), this.relativePath(sha256)))).isFile();
    } catch {
      return false;
    }
  }

  /**
   * Writes a stream to a temporary file, hashing it; refuses (BlobTooLarge) past `maxBytes`.
   * The bytes are durable (fsynced) when this resolves; `commit()` gives them their digest name.
   */
  async write(account: string, source: Readable, maxBytes: number): Promise<PendingBlob> {
    await mkdir(this.tmpDir, { recursive: true, mode: 0o700 });
    const tmp = path.join(this.tmpDir, `${process.pid}.${randomBytes(12).toString('hex')}.part`);
    const hash = createHash('sha256');
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
        size += chunk.length;
        if (size > maxBytes) return done(new BlobTooLarge(maxBytes, size));
        hash.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await streamToNewFile(source, [meter], tmp, 0o600);
      await fsyncFile(tmp);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return this.pending(account, tmp, hash.digest('hex'), size);
  }

  private pending(account: string, tmp: string, sha256: string, size: number): PendingBlob {
    let settled = false;
    return {
      sha256,
      size,
      commit: async () => {
        if (settled) return;
        settled = true;
        const target = path.join(this.rootOf(account), this.relativePath(sha256));
        const folder = path.dirname(target);
        await mkdir(folder, { recursive: true, mode: 0o700 });
        if (await this.exists(account, sha256)) {
          await rm(tmp, { force: true });
          return;
        }
        await rename(tmp, target);
        await fsyncFolder(folder);
      },
      discard: async () => {
        if (settled) return;
        settled = true;
        await rm(tmp, { force: true });
      },
    };
  }
}

/** Whether a process with this pid exists (EPERM: it exists under another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function fsyncFile(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes a rename durable: the folder entry itself is flushed. */
async function fsyncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
