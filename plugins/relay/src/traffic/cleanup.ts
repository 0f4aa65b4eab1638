/**
 * One cleanup pass over the managed log files (reference §5.4): oldest `mtime` first, a file (never
 * the current hour file) goes when it is older than `retention_days` (if > 0) or while the total
 * exceeds the target, where the target keeps room for the current file to grow to `max_file_mb`.
 * Whole files only; month and year folders left empty are removed.
 */
import { rmdir, unlink } from 'node:fs/promises';
import { MIB, type RetentionPolicy } from './retention-policy.js';
import { scanManagedFiles } from './log-layout.js';

export interface CleanupOutcome {
  deletedFiles: number;
  deletedBytes: number;
  /** Managed files and their bytes left after the pass. */
  usageBytes: number;
  fileCount: number;
  /** What failed (listing, deleting), in order. */
  errors: string[];
}

export async function cleanLogs(logsDir: string, policy: RetentionPolicy, currentFile: string, nowMs: number): Promise<CleanupOutcome> {
  const scan = await scanManagedFiles(logsDir);
  const errors = [...scan.errors];
  const files = scan.files.sort((a, b) => a.mtimeMs - b.mtimeMs);
  let total = files.reduce((sum, f) => sum + f.size, 0);
  const currentSize = files.find((f) => f.path === currentFile)?.size ?? 0;
  const reserve = Math.max(0, policy.max_file_mb * MIB - currentSize);
  const target = policy.max_total_mb * MIB - reserve;
  const cutoff = policy.retention_days > 0 ? nowMs - policy.retention_days * 86_400_000 : -Infinity;
  let deletedFiles = 0;
  let deletedBytes = 0;
  let fileCount = files.length;
  for (const file of files) {
    if (file.path === currentFile) continue;
    if (!(file.mtimeMs < cutoff || total > target)) continue;
    try {
      await unlink(file.path);
      deletedFiles += 1;
      deletedBytes += file.size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        errors.push(`cannot delete ${file.path}: ${(err as Error).message}`);
        continue;
      }
    }
    total -= file.size;
    fileCount -= 1;
  }
  for (const folder of scan.folders) {
    try {
      await rmdir(folder);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') errors.push(`cannot remove ${folder}: ${(err as Error).message}`);
    }
  }
  return { deletedFiles, deletedBytes, usageBytes: total, fileCount, errors };
}
