/**
 * One runner per data directory: `<data>/gateway_runner.lock` holds the runner's pid. A lock whose
 * process is gone (a crash) is taken over.
 */
import { openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';

export class RunnerLock {
  private held = false;

  constructor(private readonly file: string) {}

  /** True when this process now holds the lock; otherwise the pid that does. */
  acquire(): true | number {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(this.file, 'wx', 0o600);
        writeSync(fd, String(process.pid));
        closeSync(fd);
        this.held = true;
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const pid = Number(readFileSync(this.file, 'utf8').trim());
        if (pid && pid !== process.pid && alive(pid)) return pid;
        rmSync(this.file, { force: true });
      }
    }
    return Number(readFileSync(this.file, 'utf8').trim());
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    try {
      if (Number(readFileSync(this.file, 'utf8').trim()) === process.pid) rmSync(this.file, { force: true });
    } catch {
      /* already gone */
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
