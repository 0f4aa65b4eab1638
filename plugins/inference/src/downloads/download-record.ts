/** A model download as kept in LMDB (`inference:downloads`) and as the routes show it. */
import type { DownloadKind } from './download-target.js';

export type DownloadState = 'queued' | 'downloading' | 'verifying' | 'completed' | 'failed' | 'cancelled';

/** States a download is still moving in (resumed when the kernel starts again). */
export const ACTIVE_STATES: readonly DownloadState[] = ['queued', 'downloading', 'verifying'];

export interface DownloadRecord {
  id: string;
  /** The URL as given (fetched as is; shown without its user name and password). */
  url: string;
  filename: string;
  folder: string | null;
  kind: DownloadKind;
  engine: 'llama' | 'onnx';
  model: string;
  /** Absolute path of the finished file. */
  path: string;
  /** Expected SHA-256 (lower-case hex), or null when none was given. */
  sha256: string | null;
  state: DownloadState;
  bytes: number;
  total: number | null;
  /** Connections opened so far (a dropped connection is resumed with a Range request). */
  attempts: number;
  /** The server's ETag or Last-Modified, sent as If-Range so a changed file restarts from zero. */
  validator: string | null;
  /** SHA-256 of the finished bytes, once verified. */
  sha256_actual: string | null;
  error: { reason_code: string; message: string } | null;
  created_at: string;
  created_by: string;
  started_at: string | null;
  finished_at: string | null;
}

/** The URL without credentials, for views and logs. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.username || url.password) {
      url.username = '***';
      url.password = '';
    }
    return url.toString();
  } catch {
    return '(invalid URL)';
  }
}

export function partPathOf(record: Pick<DownloadRecord, 'path'>): string {
  return `${record.path}.part`;
}

export function downloadView(record: DownloadRecord, modelsDir: string) {
  const relative = record.path.startsWith(modelsDir) ? record.path.slice(modelsDir.length + 1) : record.path;
  return {
    id: record.id,
    url: redactUrl(record.url),
    filename: record.filename,
    folder: record.folder,
    file: relative,
    engine: record.engine,
    model: `local/${record.model}`,
    state: record.state,
    bytes: record.bytes,
    total: record.total,
    progress: record.total ? Math.min(1, record.bytes / record.total) : null,
    attempts: record.attempts,
    sha256: record.sha256,
    sha256_actual: record.sha256_actual,
    error: record.error,
    created_at: record.created_at,
    created_by: record.created_by,
    started_at: record.started_at,
    finished_at: record.finished_at,
  };
}
