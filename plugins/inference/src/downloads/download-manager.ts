/**
 * Model downloads: admin-given URLs fetched into the models folder, a few at a time, resumed
 * after a dropped connection or a restart (the `.part` file keeps the bytes, LMDB the record),
 * verified (SHA-256 when given, the model format always) before the file takes its name and the
 * catalog lists it. A cancel stops the transfer and removes the partial file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, realpath, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { badRequest, conflict, notFound, tooManyRequests, type Clock, type Logger, type PluginStorage } from '@keel/plugin-sdk';
import { ACTIVE_STATES, partPathOf, redactUrl, type DownloadRecord } from './download-record.js';
import { resolveTarget } from './download-target.js';
import { checkFile } from './model-format.js';
import { DownloadFailure, fetchRemainder } from './range-fetch.js';

export interface DownloadSettings {
  /** Largest file accepted, in bytes. */
  maxBytes: number;
  /** Largest JSON companion file (read whole to check it). */
  maxJsonBytes: number;
  /** Downloads transferring at once; more wait in the queue. */
  maxConcurrent: number;
  /** Downloads waiting at most; beyond, a new one is refused (429). */
  maxQueued: number;
  /** A connection that sends nothing for this long is dropped and resumed. */
  idleTimeoutMs: number;
  /** A download still unfinished after this long fails. */
  maxDurationMs: number;
  /** Connections in a row that bring no new byte before the download fails. */
  maxRetries: number;
  /** Finished downloads (completed, failed, cancelled) remembered; the oldest are forgotten. */
  keepFinished: number;
}

export interface DownloadRequest {
  url: string;
  filename?: string;
  folder?: string;
  sha256?: string;
  engine?: string;
}

interface Running {
  controller: AbortController;
  done: Promise<void>;
}

const PERSIST_EVERY_MS = 1000;

export class DownloadManager {
  private readonly db;
  private readonly records = new Map<string, DownloadRecord>();
  private readonly running = new Map<string, Running>();
  private readonly preparing = new Set<string>();
  private stopping = false;

  constructor(
    storage: PluginStorage,
    private readonly modelsDir: string,
    private readonly settings: DownloadSettings,
    private readonly clock: Clock,
    private readonly log: Logger,
    /** Called when a model file appeared, so the catalog lists it at once. */
    private readonly onModelAdded: () => void,
  ) {
    this.db = storage.openDB<DownloadRecord, string>('downloads');
    for (const { value } of this.db.getRange()) this.records.set(value.id, value);
  }

  /** Resumes the downloads a stop or crash interrupted. */
  start(): void {
    for (const record of this.records.values()) {
      if (ACTIVE_STATES.includes(record.state) && record.state !== 'queued') {
        record.state = 'queued';
        void this.save(record);
      }
    }
    this.pump();
  }

  /** Stops transfers without marking them failed: the next start resumes them from their `.part` files. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const run of this.running.values()) run.controller.abort();
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  list(): DownloadRecord[] {
    return [...this.records.values()].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
  }

  get(id: string): DownloadRecord {
    const record = this.records.get(id);
    if (!record) throw notFound(`The download '${id.slice(0, 64)}' does not exist.`, { code: 'download_not_found' });
    return record;
  }

  /** Active downloads of one engine (for the engine views). */
  activeFor(engine: 'llama' | 'onnx'): DownloadRecord[] {
    return this.list().filter((r) => r.engine === engine && ACTIVE_STATES.includes(r.state));
  }

  async create(input: DownloadRequest, by: string): Promise<DownloadRecord> {
    const url = parseUrl(input.url);
    const target = resolveTarget(this.modelsDir, { url, filename: input.filename, folder: input.folder, engine: input.engine });
    const active = [...this.records.values()].filter((r) => ACTIVE_STATES.includes(r.state));
    const same = active.find((r) => r.path === target.path);
    if (same) throw conflict(`The download ${same.id} is already fetching ${target.filename}; wait for it or cancel it.`, { code: 'download_in_progress' });
    if (existsSync(target.path)) throw conflict(`The models folder already holds ${path.relative(this.modelsDir, target.path)}; delete it first or choose another filename.`, { code: 'model_exists', field: 'body.filename' });
    if (active.length >= this.settings.maxConcurrent + this.settings.maxQueued) {
      throw tooManyRequests(`${this.settings.maxConcurrent} downloads are running and ${this.settings.maxQueued} waiting, the most allowed (settings downloads.maxConcurrent and downloads.maxQueued); try again when one has finished.`, { code: 'download_queue_full' });
    }
    // A .part left by an earlier failed download of the same URL is resumed; any other is stale.
    const previous = this.list().find((r) => r.path === target.path && r.state === 'failed' && r.url === input.url);
    const record: DownloadRecord = {
      id: `dl_${randomBytes(8).toString('hex')}`,
      url: input.url,
      filename: target.filename,
      folder: target.folder,
      kind: target.kind,
      engine: target.engine,
      model: target.model,
      path: target.path,
      sha256: input.sha256?.toLowerCase() ?? null,
      state: 'queued',
      bytes: 0,
      total: previous?.total ?? null,
      attempts: 0,
      validator: previous?.validator ?? null,
      sha256_actual: null,
      error: null,
      created_at: this.clock.now().toISOString(),
      created_by: by,
      started_at: null,
      finished_at: null,
    };
    // Registered before the first await, so a concurrent request for the same file sees it; the
    // queue leaves it alone until its partial file is sorted out.
    this.records.set(record.id, record);
    this.preparing.add(record.id);
    try {
      if (previous) record.bytes = await sizeOf(partPathOf(target));
      else await this.removePart(target);
      await this.save(record);
    } finally {
      this.preparing.delete(record.id);
    }
    this.forgetOldest();
    this.pump();
    return record;
  }

  async cancel(id: string): Promise<DownloadRecord> {
    const record = this.get(id);
    if (!ACTIVE_STATES.includes(record.state)) throw conflict(`The download ${id} is ${record.state}; only a queued or running download can be cancelled.`, { code: 'download_finished' });
    const run = this.running.get(id);
    if (run) {
      run.controller.abort();
      await run.done;
      // It may have finished in the meantime: then it stays as it ended.
      if (!ACTIVE_STATES.includes(record.state)) throw conflict(`The download ${id} is ${record.state}; only a queued or running download can be cancelled.`, { code: 'download_finished' });
    } else {
      record.state = 'cancelled'; // At once, so the queue never starts it.
    }
    // The partial file goes before the state says so: a reader never sees `cancelled` beside a `.part`.
    await this.removePart(record);
    record.state = 'cancelled';
    record.finished_at = this.clock.now().toISOString();
    await this.save(record);
    return record;
  }

  private pump(): void {
    if (this.stopping) return;
    const queued = [...this.records.values()].filter((r) => r.state === 'queued' && !this.preparing.has(r.id)).sort((a, b) => a.created_at.localeCompare(b.created_at));
    for (const record of queued) {
      if (this.running.size >= this.settings.maxConcurrent) return;
      const controller = new AbortController();
      const done = this.run(record, controller.signal).finally(() => {
        this.running.delete(record.id);
        this.pump();
      });
      this.running.set(record.id, { controller, done });
    }
  }

  private async run(record: DownloadRecord, signal: AbortSignal): Promise<void> {
    record.state = 'downloading';
    record.started_at ??= this.clock.now().toISOString();
    await this.save(record);
    const deadline = AbortSignal.timeout(this.settings.maxDurationMs);
    const maxBytes = record.kind === 'json' ? Math.min(this.settings.maxJsonBytes, this.settings.maxBytes) : this.settings.maxBytes;
    let fruitless = 0;
    let lastSaved = 0;
    try {
      await this.confine(record);
      for (;;) {
        const before = await sizeOf(partPathOf(record));
        record.attempts += 1;
        try {
          record.bytes = await fetchRemainder({
            url: record.url,
            partPath: partPathOf(record),
            kind: record.kind,
            validator: record.validator,
            maxBytes,
            idleTimeoutMs: this.settings.idleTimeoutMs,
            signal: AbortSignal.any([signal, deadline]),
            onStart: ({ offset, total, validator }) => {
              record.bytes = offset;
              record.total = total;
              record.validator = validator;
            },
            onProgress: (bytes) => {
              record.bytes = bytes;
              const now = Date.now();
              if (now - lastSaved >= PERSIST_EVERY_MS) {
                lastSaved = now;
                void this.save(record);
              }
            },
          });
          break;
        } catch (err) {
          if (signal.aborted) return; // Cancelled (the cancel recorded it) or stopping (resumed at next start).
          if (deadline.aborted) throw new DownloadFailure('timeout', `The download took longer than ${this.settings.maxDurationMs} ms (setting downloads.maxDurationMs).`, false);
          if (!(err instanceof DownloadFailure) || !err.retryable) throw err;
          fruitless = (await sizeOf(partPathOf(record))) > before ? 0 : fruitless + 1;
          if (fruitless > this.settings.maxRetries) throw new DownloadFailure(err.reasonCode, `${err.message} Gave up after ${fruitless} attempts without progress (setting downloads.maxRetries).`, false);
          this.log.info('model download resumes after a dropped connection', { id: record.id, reason: err.reasonCode, bytes: record.bytes });
          await this.save(record);
          await pause(Math.min(250 * 2 ** fruitless, 10_000), signal);
          if (signal.aborted) return;
        }
      }
      record.state = 'verifying';
      await this.save(record);
      await this.verify(record);
      if (signal.aborted) return;
      await rename(partPathOf(record), record.path);
      this.onModelAdded(); // Before the state says completed, so a reader who sees it finds the model listed.
      record.state = 'completed';
      record.finished_at = this.clock.now().toISOString();
      await this.save(record);
      this.log.info('model downloaded', { id: record.id, file: record.path, bytes: record.bytes });
    } catch (err) {
      if (signal.aborted && !deadline.aborted) return;
      const failure = err instanceof DownloadFailure ? err : new DownloadFailure('download_failed', `The download failed: ${(err as Error).message}`, false);
      // A transfer that can go on keeps its bytes (a new download of the same URL resumes them); refused bytes go.
      if (!isResumable(failure.reasonCode)) await this.removePart(record);
      record.state = 'failed';
      record.error = { reason_code: failure.reasonCode, message: failure.message };
      record.finished_at = this.clock.now().toISOString();
      await this.save(record);
      this.log.warn('model download failed', { id: record.id, url: redactUrl(record.url), reason: failure.reasonCode, message: failure.message });
    }
  }

  /** Creates the file's folder and checks that, symbolic links resolved, it is inside the models folder. */
  private async confine(record: DownloadRecord): Promise<void> {
    await mkdir(path.dirname(record.path), { recursive: true });
    if (!(await this.insideModels(path.dirname(record.path)))) {
      throw new DownloadFailure('outside_models_folder', `The folder of ${record.filename} leads out of the models folder (a symbolic link); nothing was written.`, false);
    }
  }

  private async insideModels(dir: string): Promise<boolean> {
    try {
      const root = await realpath(this.modelsDir);
      const real = await realpath(dir);
      return real === root || real.startsWith(root + path.sep);
    } catch {
      return false; // No such folder: nothing of ours is in it.
    }
  }

  /** Removes a download's partial file, never one a symbolic link puts outside the models folder. */
  private async removePart(record: Pick<DownloadRecord, 'path'>): Promise<void> {
    if (await this.insideModels(path.dirname(record.path))) await rm(partPathOf(record), { force: true });
  }

  /** Checksum and format, on the complete `.part` file, before it takes its name. */
  private async verify(record: DownloadRecord): Promise<void> {
    record.sha256_actual = await sha256Of(partPathOf(record));
    if (record.sha256 && record.sha256 !== record.sha256_actual) {
      throw new DownloadFailure('checksum_mismatch', `The file's SHA-256 is ${record.sha256_actual}, not the expected ${record.sha256}; it was deleted.`, false);
    }
    const wrong = await checkFile(record.kind, partPathOf(record));
    if (wrong) throw new DownloadFailure('not_a_model', `Refused: ${wrong}.`, false);
    if (existsSync(record.path)) throw new DownloadFailure('model_exists', `The models folder meanwhile holds ${record.filename}; the download was not kept.`, false);
  }

  private async save(record: DownloadRecord): Promise<void> {
    await this.db.put(record.id, { ...record });
  }

  private forgetOldest(): void {
    const finished = this.list().filter((r) => !ACTIVE_STATES.includes(r.state));
    for (const record of finished.slice(this.settings.keepFinished)) {
      this.records.delete(record.id);
      void this.db.remove(record.id);
    }
  }
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest('The url is not a valid absolute URL.', { code: 'invalid_url', field: 'body.url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw badRequest(`Only http and https URLs can be downloaded, not ${url.protocol.replace(/:$/, '').slice(0, 20)}.`, { code: 'unsupported_url', field: 'body.url' });
  }
  return url;
}

function isResumable(reasonCode: string): boolean {
  return ['connection_dropped', 'idle_timeout', 'http_status', 'timeout', 'empty_body', 'range_mismatch'].includes(reasonCode);
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}

function sha256Of(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
