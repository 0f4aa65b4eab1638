/**
 * Local files (`POST /v1/files`, reference §1.12): records in LMDB (`files`), bytes in
 * `<plugin data>/files/<id>`. An upload streams to a temporary file (created with O_EXCL, removed on
 * any failure) while it is counted against `uploads.maxUploadBytes` and the room left under
 * `uploads.maxTotalUploadBytes`; only a complete, admitted file is renamed to its id and recorded.
 * The totals are kept in memory (counted from the records at start) with the room of uploads being
 * committed reserved, so two uploads at once cannot both take the last room.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import type { Database } from 'lmdb';
import { formatBytes, payloadTooLarge, streamToNewFile, type Clock, type PluginStorage } from '@keel/plugin-sdk';
import type { RelayConfig } from '../config.js';
import type { FileStore } from '../contracts.js';
import { FILE_ID, newFileId } from './storage-ids.js';

export interface FileRecord {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  filename: string;
  purpose: string;
  status: 'processed';
  content_type: string;
}

/** The record as stored: the wire record plus its upload order (milliseconds, strictly increasing). */
interface StoredFile extends FileRecord {
  order: number;
}

/** Bytes written to a temporary file, not yet a file: `commit` or `discard` it. */
export interface ReceivedBytes {
  readonly size: number;
  readonly sha256: string;
  commit(meta: { filename: string; contentType: string; purpose: string }): Promise<FileRecord>;
  discard(): Promise<void>;
}

export class RelayFiles implements FileStore {
  readonly folder: string;
  private readonly tmp: string;
  private readonly records: Database<StoredFile, string>;
  private lastOrder = 0;
  private count = 0;
  private totalBytes = 0;
  private reservedFiles = 0;
  private reservedBytes = 0;

  constructor(storage: PluginStorage, pluginDir: string, private readonly limits: RelayConfig['uploads'], private readonly clock: Clock) {
    this.records = storage.openDB<StoredFile, string>('files');
    this.folder = path.join(pluginDir, 'files');
    this.tmp = path.join(this.folder, 'tmp');
  }

  /** Counts the stored files and removes what a crash left: temporary files, bytes without a record. */
  async start(): Promise<void> {
    await mkdir(this.tmp, { recursive: true, mode: 0o700 });
    for (const name of await readdir(this.tmp)) await rm(path.join(this.tmp, name), { force: true });
    this.count = 0;
    this.totalBytes = 0;
    for (const { value } of this.records.getRange()) {
      this.lastOrder = Math.max(this.lastOrder, value.order);
      this.count++;
      this.totalBytes += value.bytes;
    }
    for (const name of await readdir(this.folder)) {
      if (FILE_ID.test(name) && this.records.get(name) === undefined) await rm(path.join(this.folder, name), { force: true });
    }
  }

  stats(): { file_count: number; total_bytes: number } {
    return { file_count: this.count, total_bytes: this.totalBytes };
  }

  /** In upload order. */
  list(): FileRecord[] {
    return [...this.records.getRange()].map((e) => e.value).sort((a, b) => a.order - b.order).map(wire);
  }

  get(id: string): FileRecord | null {
    const stored = FILE_ID.test(id) ? this.records.get(id) : undefined;
    return stored ? wire(stored) : null;
  }

  async read(id: string): Promise<{ filename: string; content_type: string; bytes: Buffer } | null> {
    const record = this.get(id);
    if (!record) return null;
    try {
      return { filename: record.filename, content_type: record.content_type, bytes: await readFile(path.join(this.folder, id)) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(id: string): Promise<boolean> {
    const record = this.get(id);
    if (!record) return false;
    // Two deletes at once: only the one that removed the record counts it.
    if (!(await this.records.remove(id))) return false;
    this.count--;
    this.totalBytes -= record.bytes;
    await rm(path.join(this.folder, id), { force: true });
    return true;
  }

  /** Refuses (413) before reading a byte when the store already holds `uploads.maxFiles` files. */
  checkRoomForOne(): void {
    if (this.count + this.reservedFiles >= this.limits.maxFiles) {
      throw payloadTooLarge(`The relay already stores ${this.limits.maxFiles} files (setting uploads.maxFiles); delete some with DELETE /v1/files/{id} first.`, { code: 'too_many_files', headers: { connection: 'close' } });
    }
  }

  /** Writes `source` to a temporary file, refusing (413) past the per-file limit or the room left. */
  async receive(source: Readable): Promise<ReceivedBytes> {
    await mkdir(this.tmp, { recursive: true, mode: 0o700 });
    const tmp = path.join(this.tmp, `${process.pid}.${randomBytes(12).toString('hex')}.part`);
    let size = 0;
    const hash = createHash('sha256');
    const meter = new Transform({
      transform: (chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) => {
        size += chunk.length;
        if (size > this.limits.maxUploadBytes) return done(this.tooLarge());
        if (this.totalBytes + this.reservedBytes + size > this.limits.maxTotalUploadBytes) return done(this.overBudget());
        hash.update(chunk);
        done(null, chunk);
      },
    });
    await streamToNewFile(source, [meter], tmp, 0o600);
    let settled = false;
    const discard = async () => {
      if (settled) return;
      settled = true;
      await rm(tmp, { force: true });
    };
    return {
      size,
      sha256: hash.digest('hex'),
      discard,
      commit: async (meta) => {
        this.checkRoomForOne();
        if (this.totalBytes + this.reservedBytes + size > this.limits.maxTotalUploadBytes) throw this.overBudget();
        this.reservedBytes += size;
        this.reservedFiles++;
        settled = true;
        try {
          const now = this.clock.nowMs();
          this.lastOrder = Math.max(this.lastOrder + 1, now);
          const record: FileRecord = { id: newFileId(), object: 'file', bytes: size, created_at: Math.floor(now / 1000), filename: meta.filename, purpose: meta.purpose, status: 'processed', content_type: meta.contentType };
          await rename(tmp, path.join(this.folder, record.id));
          await this.records.put(record.id, { ...record, order: this.lastOrder });
          this.count++;
          this.totalBytes += size;
          return record;
        } catch (err) {
          await rm(tmp, { force: true });
          throw err;
        } finally {
          this.reservedBytes -= size;
          this.reservedFiles--;
        }
      },
    };
  }

  private tooLarge() {
    return payloadTooLarge(`The file is larger than ${formatBytes(this.limits.maxUploadBytes)} (setting uploads.maxUploadBytes).`, { code: 'file_too_large', headers: { connection: 'close' } });
  }

  private overBudget() {
    return payloadTooLarge(`The file does not fit in the room left for local files (${formatBytes(Math.max(0, this.limits.maxTotalUploadBytes - this.totalBytes - this.reservedBytes))} of ${formatBytes(this.limits.maxTotalUploadBytes)}, setting uploads.maxTotalUploadBytes); delete files with DELETE /v1/files/{id} first.`, { code: 'storage_full', headers: { connection: 'close' } });
  }
}

function wire(stored: StoredFile): FileRecord {
  const { order: _order, ...record } = stored;
  return record;
}
