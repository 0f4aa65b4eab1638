/**
 * How the traffic log is doing, for `GET /v1/relay/logging` (reference §1.8): records dropped and
 * omitted, the last storage error, and the operator's warning (at most once a minute: a full disk
 * must not flood the console). Serving never fails because of logging; this is where it shows.
 */
import type { Clock, Logger } from '@keel/plugin-sdk';
import { MIB, type PolicySource, type RetentionPolicy } from './retention-policy.js';

/** The logging status of `GET`/`PUT /v1/relay/logging` (reference §1.8, seed §2C). */
export interface LoggingStatus {
  policy: RetentionPolicy;
  policy_source: PolicySource;
  policy_path: string;
  logs_dir: string;
  usage_bytes: number;
  file_count: number;
  over_budget: boolean;
  cleanup_interval_seconds: number;
  last_cleanup_at: string | null;
  deleted_files: number;
  deleted_bytes: number;
  oversized_records: number;
  dropped_records: number;
  last_error: string | null;
}

const WARN_EVERY_MS = 60_000;

export class LogHealth {
  oversizedRecords = 0;
  droppedRecords = 0;
  lastError: string | null = null;
  /** Bytes and files of the managed logs as of the last pass or scan, plus what was appended since. */
  usageBytes = 0;
  fileCount = 0;
  deletedFiles = 0;
  deletedBytes = 0;
  lastCleanupAt: string | null = null;
  private lastWarnMs = -Infinity;

  constructor(private readonly clock: Clock, private readonly log: Logger, private readonly logsDir: string) {}

  /** The logging status with `policy` in force. */
  report(policy: RetentionPolicy, source: PolicySource, policyPath: string, cleanupIntervalSeconds: number): LoggingStatus {
    return {
      policy: { ...policy },
      policy_source: source,
      policy_path: policyPath,
      logs_dir: this.logsDir,
      usage_bytes: this.usageBytes,
      file_count: this.fileCount,
      over_budget: this.usageBytes > policy.max_total_mb * MIB,
      cleanup_interval_seconds: cleanupIntervalSeconds,
      last_cleanup_at: this.lastCleanupAt,
      deleted_files: this.deletedFiles,
      deleted_bytes: this.deletedBytes,
      oversized_records: this.oversizedRecords,
      dropped_records: this.droppedRecords,
      last_error: this.lastError,
    };
  }

  /** `count` records lost, and why. */
  dropped(count: number, message: string): void {
    this.droppedRecords += count;
    this.storageError(message);
  }

  storageError(message: string): void {
    this.lastError = message;
    this.warn(message);
  }

  warn(message: string): void {
    const now = this.clock.nowMs();
    if (now - this.lastWarnMs < WARN_EVERY_MS) return;
    this.lastWarnMs = now;
    this.log.warn(`traffic log: ${message} (serving goes on; records are dropped until storage recovers)`, { logs_dir: this.logsDir });
  }
}
