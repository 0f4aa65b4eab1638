/**
 * The sandbox workers on the main thread's side: up to `maxWorkers` worker threads, each loading
 * Pyodide once and then reused; calls queue for a free worker. A call's time budget starts when a
 * ready worker takes it; past it, Python is interrupted (KeyboardInterrupt through the worker's
 * interrupt buffer) and the worker stays warm; code that does not stop within `interruptGraceMs`
 * (a long C-level operation, a bare `except:` around the loop), or a cancelled run, has its worker
 * terminated and a fresh one started for the next call. Idle workers end after `idleTimeoutMs`,
 * except the `warmWorkers` loaded at start, which are kept (and replaced when one ends).
 *
 * Not the SDK's piscina pools: the budget must not count the queue or Pyodide's load, a worker must
 * be replaced mid-call, and the worker needs `resourceLimits`, which those pools do not take.
 */
import { Worker } from 'node:worker_threads';
import type { CodeOutcome, CodeTask, WorkerReply, WorkerSettings } from './worker-protocol.js';

export interface SandboxSettings {
  /** How long one call may run once a worker has it. */
  timeoutMs: number;
  /** The WebAssembly memory one worker's Python may use, in MiB (Pyodide itself takes about 30). */
  memoryLimitMb: number;
  /** The JavaScript heap of one worker, in MiB (worker `resourceLimits`). */
  workerHeapMb: number;
  /** Longest JSON text a call may return. */
  maxOutputChars: number;
  maxWorkers: number;
  idleTimeoutMs: number;
  /** How long Pyodide may take to load in a new worker. */
  loadTimeoutMs: number;
  /** How long interrupted code has to stop before its worker is terminated. */
  interruptGraceMs: number;
  /** Workers loaded when the plugin starts and kept loaded (never ended for being idle); 0: on first use. */
  warmWorkers: number;
}

/** Why a call did not finish normally: the node fails with this text. */
export class SandboxError extends Error {}

interface Pending {
  task: CodeTask;
  /** Whose call it is: the queue serves accounts in turn. */
  account: string;
  signal: AbortSignal;
  resolve(outcome: CodeOutcome): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  interrupt: Int32Array;
  ready: boolean;
  current: (Pending & { id: number; timer: NodeJS.Timeout }) | null;
  idleTimer: NodeJS.Timeout | null;
  loadTimer: NodeJS.Timeout | null;
  gone: boolean;
}

const WORKER_URL = new URL('./python-worker.js', import.meta.url);

export class SandboxPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  /** When each account's last call got a worker (a dispatch count): the one served longest ago goes first. */
  private readonly lastServed = new Map<string, number>();
  private dispatches = 0;

  constructor(private readonly settings: SandboxSettings) {}

  /** Runs one call of `account`; rejects with a `SandboxError` (time budget, worker failure) or the signal's abort. */
  run(task: CodeTask, signal: AbortSignal, account: string): Promise<CodeOutcome> {
    if (this.closed) return Promise.reject(new SandboxError('the code plugin is stopping.'));
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new SandboxError('the run was cancelled.'));
      // A cancel while queued removes the call; while running, `assign` ends its worker.
      const onQueuedAbort = () => {
        const at = this.queue.indexOf(pending);
        if (at >= 0) {
          this.queue.splice(at, 1);
          reject(new SandboxError('the run was cancelled.'));
        }
      };
      const dequeued = <T>(done: (value: T) => void) => (value: T) => {
        signal.removeEventListener('abort', onQueuedAbort);
        done(value);
      };
      const pending: Pending = { task, account, signal, resolve: dequeued(resolve), reject: dequeued(reject) };
      signal.addEventListener('abort', onQueuedAbort, { once: true });
      this.queue.push(pending);
      this.dispatch();
    });
  }

  /** Loads the `warmWorkers` workers (at the plugin's start), so the first calls do not wait for Pyodide. */
  warm(): void {
    while (!this.closed && this.slots.size < this.settings.warmWorkers) this.spawn();
  }

  /** How many workers are loaded and how many are loading. */
  status(): { ready: number; loading: number } {
    const live = [...this.slots].filter((s) => !s.gone);
    return { ready: live.filter((s) => s.ready).length, loading: live.filter((s) => !s.ready).length };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new SandboxError('the code plugin is stopping.'));
    await Promise.all([...this.slots].map((slot) => this.retire(slot, new SandboxError('the code plugin is stopping.'))));
  }

  private dispatch(): void {
    while (this.queue.length) {
      const free = [...this.slots].find((s) => s.ready && !s.current && !s.gone);
      if (free) {
        this.assign(free, this.takeNext());
        continue;
      }
      const loading = [...this.slots].filter((s) => !s.ready && !s.gone).length;
      // Start a worker only for calls no loading worker will take.
      if (this.slots.size < this.settings.maxWorkers && loading < this.queue.length) {
        this.spawn();
        continue;
      }
      return;
    }
  }

  /**
   * The oldest queued call of the account served longest ago: calls queue in order, but one
   * account's many calls (a flood of runs or simulations) do not keep every other account waiting.
   */
  private takeNext(): Pending {
    const servedAt = (p: Pending) => this.lastServed.get(p.account) ?? -1;
    let best = 0;
    for (let i = 1; i < this.queue.length; i++) if (servedAt(this.queue[i]!) < servedAt(this.queue[best]!)) best = i;
    const [next] = this.queue.splice(best, 1);
    // Forgetting is safe (a forgotten account just counts as not served lately): the map stays small.
    if (this.lastServed.size >= 10_000) this.lastServed.clear();
    this.lastServed.set(next!.account, ++this.dispatches);
    return next!;
  }

  private spawn(): void {
    const interrupt = new SharedArrayBuffer(4);
    const workerData: WorkerSettings = { memoryLimitBytes: this.settings.memoryLimitMb * 1024 * 1024, maxOutputChars: this.settings.maxOutputChars, interrupt };
    const worker = new Worker(WORKER_URL, {
      workerData,
      // No environment at all: nothing of the host's reaches Python, even through a bug.
      env: {},
      resourceLimits: { maxOldGenerationSizeMb: this.settings.workerHeapMb },
    });
    const slot: Slot = { worker, interrupt: new Int32Array(interrupt), ready: false, current: null, idleTimer: null, loadTimer: null, gone: false };
    this.slots.add(slot);
    slot.loadTimer = setTimeout(() => void this.retire(slot, new SandboxError(`Pyodide did not load within ${this.settings.loadTimeoutMs} ms (the code plugin's loadTimeoutMs).`), true), this.settings.loadTimeoutMs);
    worker.on('message', (reply: WorkerReply) => this.onReply(slot, reply));
    worker.on('error', (err) => void this.retire(slot, new SandboxError(`the sandbox worker failed: ${err.message}`), true));
    worker.on('exit', () => void this.retire(slot, new SandboxError('the sandbox worker ended unexpectedly.'), true));
  }

  private onReply(slot: Slot, reply: WorkerReply): void {
    if (reply.kind === 'ready') {
      clearTimeout(slot.loadTimer!);
      slot.ready = true;
      this.dispatch();
      this.armIdle(slot);
      return;
    }
    if (reply.kind === 'broken') {
      void this.retire(slot, new SandboxError(reply.error), true);
      return;
    }
    const current = slot.current;
    if (!current || current.id !== reply.id) return;
    clearTimeout(current.timer);
    slot.current = null;
    if (reply.timedOut) current.reject(new SandboxError(this.overBudget()));
    else current.resolve({ ok: reply.ok, value: reply.value, error: reply.error, execution: reply.execution });
    if (reply.retire) void this.retire(slot, null);
    else this.armIdle(slot);
    this.dispatch();
  }

  private assign(slot: Slot, pending: Pending): void {
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = null;
    const id = this.nextId++;
    // Past the budget: interrupt Python, and end the worker if the code does not stop in time.
    const timer = setTimeout(() => {
      if (slot.current?.id !== id) return;
      Atomics.store(slot.interrupt, 0, 2);
      slot.current.timer = setTimeout(() => void this.retire(slot, new SandboxError(this.overBudget())), this.settings.interruptGraceMs);
    }, this.settings.timeoutMs);
    const onAbort = () => {
      if (slot.current?.id === id) void this.retire(slot, new SandboxError('the run was cancelled.'));
    };
    pending.signal.addEventListener('abort', onAbort, { once: true });
    const settle = <T>(done: (value: T) => void) => (value: T) => {
      pending.signal.removeEventListener('abort', onAbort);
      done(value);
    };
    slot.current = { ...pending, resolve: settle(pending.resolve), reject: settle(pending.reject), id, timer };
    slot.worker.postMessage({ id, task: pending.task });
  }

  private overBudget(): string {
    return `Runtime error: the code ran longer than its ${this.settings.timeoutMs} ms budget (the code plugin's timeoutMs) and was stopped`;
  }

  private armIdle(slot: Slot): void {
    if (slot.current || slot.gone) return;
    slot.idleTimer = setTimeout(() => {
      slot.idleTimer = null;
      // The warm workers stay loaded however long they idle.
      if (this.slots.size > this.settings.warmWorkers) void this.retire(slot, null);
    }, this.settings.idleTimeoutMs);
    slot.idleTimer.unref();
  }

  /** Ends a worker; its call (if any) fails with `reason`, and calls still queued get a new worker. */
  private async retire(slot: Slot, reason: SandboxError | null, failQueueIfNotReady = false): Promise<void> {
    if (slot.gone) return;
    slot.gone = true;
    this.slots.delete(slot);
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    if (slot.loadTimer) clearTimeout(slot.loadTimer);
    const current = slot.current;
    slot.current = null;
    if (current) {
      clearTimeout(current.timer);
      current.reject(reason ?? new SandboxError('the sandbox worker ended unexpectedly.'));
    }
    // A worker that never became ready fails the waiting calls rather than looping on new workers.
    if (failQueueIfNotReady && !slot.ready && reason) for (const pending of this.queue.splice(0)) pending.reject(reason);
    await slot.worker.terminate();
    if (this.closed) return;
    // A warm worker that ended (out of memory, cancelled, over budget) is replaced; one that never
    // loaded is not (no loop of workers failing to load).
    if (slot.ready) this.warm();
    this.dispatch();
  }
}
