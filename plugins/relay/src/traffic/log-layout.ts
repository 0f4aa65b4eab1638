/**
 * Where traffic log files live (reference §5.1, §5.4): `<logs_dir>/YYYY/MM/DD-HH.log` by UTC hour,
 * rotated pieces `DD-HH.<32 hex>.log` beside it. A *managed* file is one of those names with a real
 * date and hour, a regular file with one link, reached without following a symlink: only managed
 * files are ever counted or deleted; everything else in the folder is left alone.
 */
import { randomUUID } from 'node:crypto';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

export interface ManagedFile {
  path: string;
  size: number;
  mtimeMs: number;
}

const YEAR = /^\d{4}$/;
const MONTH = /^(0[1-9]|1[0-2])$/;
const FILE = /^(\d{2})-(\d{2})(\.[0-9a-f]{32})?\.log$/;

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/** The hour file for the UTC time `ms`. */
export function hourFilePath(logsDir: string, ms: number): string {
  const d = new Date(ms);
  return path.join(logsDir, String(d.getUTCFullYear()).padStart(4, '0'), two(d.getUTCMonth() + 1), `${two(d.getUTCDate())}-${two(d.getUTCHours())}.log`);
}

/** The name a full hour file is renamed to: `DD-HH.<32 hex>.log` in the same folder. */
export function rotatedPath(hourFile: string): string {
  return hourFile.replace(/\.log$/, `.${randomUUID().replace(/-/g, '')}.log`);
}

function validFileName(year: number, month: number, name: string): boolean {
  const match = FILE.exec(name);
  if (!match) return false;
  const day = Number(match[1]);
  const hour = Number(match[2]);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day >= 1 && day <= daysInMonth && hour <= 23;
}

export interface Scan {
  files: ManagedFile[];
  /** The `YYYY` and `YYYY/MM` folders seen (real folders, not symlinks), deepest first. */
  folders: string[];
  /** Messages of folders or files that could not be read. */
  errors: string[];
}

/** Every managed file under `logsDir` (a missing folder has none). */
export async function scanManagedFiles(logsDir: string): Promise<Scan> {
  const scan: Scan = { files: [], folders: [], errors: [] };
  const years = await entries(logsDir, scan);
  for (const year of years) {
    if (!YEAR.test(year.name) || !year.isDirectory()) continue;
    const yearDir = path.join(logsDir, year.name);
    for (const month of await entries(yearDir, scan)) {
      if (!MONTH.test(month.name) || !month.isDirectory()) continue;
      const monthDir = path.join(yearDir, month.name);
      for (const file of await entries(monthDir, scan)) {
        if (!file.isFile() || !validFileName(Number(year.name), Number(month.name), file.name)) continue;
        const filePath = path.join(monthDir, file.name);
        try {
          const stat = await lstat(filePath);
          // A hard-linked file is someone else's too: never counted, never deleted.
          if (stat.isFile() && stat.nlink === 1) scan.files.push({ path: filePath, size: stat.size, mtimeMs: stat.mtimeMs });
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') scan.errors.push(`cannot read ${filePath}: ${(err as Error).message}`);
        }
      }
      scan.folders.push(monthDir);
    }
    scan.folders.push(yearDir);
  }
  return scan;
}

/** A folder's entries as lstat sees them (a symlink is a symlink, never followed). */
async function entries(dir: string, scan: Scan) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') scan.errors.push(`cannot list ${dir}: ${(err as Error).message}`);
    return [];
  }
}
