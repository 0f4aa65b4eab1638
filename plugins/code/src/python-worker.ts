/**
 * One sandbox worker thread: loads Pyodide once (from the npm package's own files, nothing
 * downloaded), cuts Python off from JavaScript, then runs `code` node requests one at a time.
 *
 * The memory budget: a worker's `resourceLimits` bound only the JavaScript heap, not WebAssembly
 * memory. Pyodide's linear memory grows only through `WebAssembly.Memory.prototype.grow` (called by
 * its `emscripten_resize_heap`); refusing a growth past the budget makes `malloc` fail inside the
 * interpreter, which Python raises as `MemoryError`. The patch is installed before Pyodide loads,
 * in this worker's own realm only.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { loadPyodide, type PyodideInterface } from 'pyodide';
import { PYTHON_DRIVER, PYTHON_LOCKDOWN } from './python-driver.js';
import type { WorkerReply, WorkerRequest, WorkerSettings } from './worker-protocol.js';

const settings = workerData as WorkerSettings;
const interrupt = new Int32Array(settings.interrupt);
const PAGE = 65_536;

/** The part of the WebAssembly API used here (the project's `lib` has no WebAssembly types). */
interface WasmMemory { readonly buffer: ArrayBuffer; grow(delta: number): number }
const memoryPrototype = (globalThis as unknown as { WebAssembly: { Memory: { prototype: WasmMemory } } }).WebAssembly.Memory.prototype;
const originalGrow = memoryPrototype.grow;
memoryPrototype.grow = function grow(this: WasmMemory, delta: number): number {
  if (this.buffer.byteLength + delta * PAGE > settings.memoryLimitBytes) throw new RangeError('Keel code sandbox: memory budget reached');
  return originalGrow.call(this, delta);
};

async function start(): Promise<PyodideInterface> {
  const pyodide = await loadPyodide({
    // Python's `js` module would expose this object: an empty one, and the module is removed below anyway.
    jsglobals: Object.create(null) as object,
    env: { HOME: '/home/pyodide' },
    stdout: () => undefined,
    stderr: () => undefined,
    stdin: () => null,
  });
  pyodide.runPython(PYTHON_DRIVER);
  for (const name of ['js', 'pyodide_js']) {
    try {
      pyodide.unregisterJsModule(name);
    } catch {
      // not registered in this Pyodide version: nothing to remove
    }
  }
  pyodide.runPython(PYTHON_LOCKDOWN);
  pyodide.setInterruptBuffer(interrupt);
  refuseHostModules();
  refuseJavaScript();
  return pyodide;
}

/**
 * Python with imports (full_access, or code that got around the checks) reaches this worker's
 * JavaScript through Emscripten's `emscripten_run_script*` (via `ctypes`) or a side module's EM_JS,
 * both of which `eval` text; from there `import()` and `process.binding` go around the module
 * loader guard (host files, programs). Once Pyodide is loaded nothing here evaluates text, so
 * `eval` refuses, and the process functions that reach the host (or signal the server) are gone.
 */
function refuseJavaScript(): void {
  const refuse = (what: string) => () => {
    throw new Error(`the code sandbox has no access to ${what}`);
  };
  (globalThis as { eval: unknown }).eval = refuse('JavaScript');
  const host = process as unknown as Record<string, unknown>;
  for (const name of ['binding', '_linkedBinding', 'dlopen', 'kill']) host[name] = refuse(`process.${name}`);
  for (const name of ['fetch', 'WebSocket', 'EventSource']) delete (globalThis as Record<string, unknown>)[name];
}

/**
 * Pyodide's Emscripten layer reaches the host through Node modules it requires when asked:
 * `child_process` for `os.system`, `ws` for socket calls (a real connection), `fs` for host files.
 * Once Pyodide is loaded, this worker's module loader (each worker has its own) refuses everything
 * but `crypto` (random bytes), so even Python that got around the checks finds no way out.
 */
function refuseHostModules(): void {
  const loader = createRequire(import.meta.url)('node:module') as { _load(request: string, ...rest: unknown[]): unknown };
  const load = loader._load;
  loader._load = function guardedLoad(request: string, ...rest: unknown[]): unknown {
    if (request === 'node:crypto' || request === 'crypto') return load.call(this, request, ...rest);
    throw new Error(`the code sandbox has no access to the host module '${request}'`);
  };
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

const ready = start();
ready.then(
  () => parentPort!.postMessage({ kind: 'ready' } satisfies WorkerReply),
  (err: unknown) => parentPort!.postMessage({ kind: 'broken', error: `Pyodide failed to load: ${(err as Error).message ?? String(err)}` } satisfies WorkerReply),
);

parentPort!.on('message', (request: WorkerRequest) => {
  void ready.then((pyodide) => {
    const run = pyodide.globals.get('_keel_run') as (json: string) => string;
    Atomics.store(interrupt, 0, 0);
    const cpuBefore = process.cpuUsage();
    const rssBefore = process.resourceUsage().maxRSS / 1024;
    const began = performance.now();
    let replyJson: string;
    let fatal = false;
    try {
      replyJson = run(JSON.stringify({ ...request.task, max_output_chars: settings.maxOutputChars }));
    } catch (err) {
      // The interpreter itself failed (a WebAssembly trap, a stack overflow): this worker is not reused.
      fatal = true;
      replyJson = JSON.stringify({ ok: false, error: `Runtime error: ${(err as Error).message ?? String(err)}` });
    }
    const duration = performance.now() - began;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const rss = process.resourceUsage().maxRSS / 1024;
    const parsed = JSON.parse(replyJson) as { ok: boolean; value?: unknown; error?: string; memory?: boolean; timeout?: boolean };
    const execution = {
      duration_ms: round3(duration),
      cpu_time_ms: round3(cpuMs),
      ...(duration > 0 ? { cpu_percent: round3((cpuMs / duration) * 100) } : {}),
      memory_rss_mb: round3(rss),
      memory_rss_delta_mb: round3(rss - rssBefore),
    };
    parentPort!.postMessage({
      kind: 'result',
      id: request.id,
      ok: parsed.ok,
      value: parsed.value ?? null,
      error: parsed.error ?? null,
      execution,
      // After a MemoryError the heap stays at its budget (WebAssembly memory never shrinks): start afresh.
      retire: fatal || Boolean(parsed.memory),
      timedOut: Boolean(parsed.timeout),
    } satisfies WorkerReply);
  });
});
