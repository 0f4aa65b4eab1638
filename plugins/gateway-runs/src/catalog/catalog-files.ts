/**
 * The catalog's immutable bundle bytes: one file per (bundle, version, sha256) under
 * `<plugin dir>/workflow_catalog/bundles/<scope>/<tenant>/`, written to a temp name, flushed, then
 * linked into place create-exclusive (an existing file is never replaced; its name already says
 * which bytes it holds). Reads verify the digest, so a changed file is refused, never run.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, mkdir, open, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export class CatalogFiles {
  constructor(readonly root: string) {}

  /** The relative path of a version's bytes. */
  relativePath(scope: string, tenant: string, bundleId: string, version: string, sha256: string): string {
    return path.join(scope, tenant, `${bundleId}@${version}.${sha256}.flow`);
  }

  /** Writes the bytes once; a file already there with the same digest is kept as it is. */
  async writeOnce(rel: string, bytes: Uint8Array, sha256: string): Promise<void> {
    const file = path.join(this.root, rel);
    const dir = path.dirname(file);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const handle = await open(tmp, 'wx', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const existing = await readFile(file);
      if (sha256Hex(existing) !== sha256) throw new Error(`catalog file ${rel} exists with other bytes than its name says`, { cause: err });
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
    await syncDir(dir);
  }

  /** The bytes of a version, checked against the digest the record holds. */
  read(rel: string, sha256: string): Uint8Array {
    const bytes = readFileSync(path.join(this.root, rel));
    if (sha256Hex(bytes) !== sha256) throw new Error(`catalog file ${rel} no longer matches its sha256 ${sha256}`);
    return bytes;
  }
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the file itself is already flushed.
  } finally {
    await handle.close();
  }
}
