/**
 * How busy the machine was with other work during the run: CPU time all processes used
 * (/proc/stat) minus what this benchmark used (this process and the kernel child), as a share of
 * the machine. The figures here are about 0.5 ms per token, so anything else running shows; the
 * share tells a reader of RESULTS.md how much to trust a run. null where /proc/stat is missing.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';

interface Stamp {
  wallMs: number;
  busyMs: number;
  ownMs: number;
}

export class MachineLoad {
  private start: Stamp | null = null;

  constructor(private readonly childCpuMicros: () => Promise<number>) {}

  async begin(): Promise<void> {
    this.start = await this.stamp();
  }

  /** Share (0..1) of the machine's CPU that other processes used since `begin()`. */
  async othersShare(): Promise<number | null> {
    if (!this.start) return null;
    const end = await this.stamp();
    const wall = end.wallMs - this.start.wallMs;
    if (!Number.isFinite(end.busyMs) || !Number.isFinite(this.start.busyMs) || wall <= 0) return null;
    const others = end.busyMs - this.start.busyMs - (end.ownMs - this.start.ownMs);
    return Math.min(1, Math.max(0, others / (wall * os.availableParallelism())));
  }

  private async stamp(): Promise<Stamp> {
    const own = process.cpuUsage();
    const child = await this.childCpuMicros();
    return { wallMs: performance.now(), busyMs: busyMs(), ownMs: (own.user + own.system + child) / 1000 };
  }
}

/** CPU time all processes spent busy (not idle or waiting on I/O), from /proc/stat; NaN when unreadable. */
function busyMs(): number {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already in user); steal is
    // time the hypervisor gave to other machines, so it counts as other work. Units: USER_HZ (100).
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return ((user + nice + system + irq + softirq + steal) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}
