/**
 * REST polling, the fallback that keeps the page current while the live socket is down: a tick
 * every 5 s, and every 6th tick (30 s) a slower pass. A tick never overlaps the previous one.
 */

export const POLL_MS = 5000;
export const SLOW_EVERY = 6;

export class Poller {
  private timer: ReturnType<typeof setInterval> | null = null;
  private ticks = 0;
  private running = false;

  constructor(private readonly onTick: (slow: boolean) => Promise<void>, private readonly intervalMs = POLL_MS) {}

  start(): void {
    if (this.timer) return;
    this.ticks = 0;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.ticks += 1;
    try {
      await this.onTick(this.ticks % SLOW_EVERY === 0);
    } finally {
      this.running = false;
    }
  }
}
