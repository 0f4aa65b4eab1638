/**
 * `POST /runs/{id}/workspace/open`: shows a run's folder in the file manager of the gateway
 * computer, for the admin sitting at it. The program is the setting `runWorkspace.opener`, else
 * the platform's (`xdg-open` on Linux and BSD, `open` on macOS, `explorer` on Windows), looked up on
 * PATH before it is run; the folder is its only argument (no shell).
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';

export function platformOpener(): string {
  if (process.platform === 'darwin') return 'open';
  if (process.platform === 'win32') return 'explorer';
  return 'xdg-open';
}

/** The program's path: as given when it has a folder part, else the first executable on PATH; null when none. */
export async function findProgram(name: string): Promise<string | null> {
  const candidates = name.includes(path.sep) || name.includes('/') ? [name] : (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, name));
  for (const file of candidates) {
    try {
      await access(file, constants.X_OK);
      return file;
    } catch {
      // Next one.
    }
  }
  return null;
}

/** Runs the opener with the folder; rejects with a sentence when it fails or takes longer than `timeoutMs`. */
export function runOpener(program: string, folder: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(program, [folder], { timeout: timeoutMs, windowsHide: true, stdio: 'ignore' } as Parameters<typeof execFile>[2], (err) => {
      if (!err) return resolve();
      const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: unknown };
      reject(new Error(e.killed ? `${path.basename(program)} did not finish within ${timeoutMs} ms (gateway-runs setting runWorkspace.openTimeoutMs).` : `${path.basename(program)} failed (${typeof e.code === 'number' ? `exit code ${e.code}` : String(e.code ?? 'error')}).`));
    });
  });
}
