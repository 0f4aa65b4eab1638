/**
 * The espeak worker module (one per piscina thread). Each request runs eSpeak NG's command line
 * `main` in a fresh instance of the Emscripten module: the glue exports no way to call `main` twice,
 * and a fresh instance starts from clean global state. The compiled WebAssembly module is kept per
 * thread, so only instantiation (~0.1 s, mostly espeak loading its data) is paid per request.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { decodeWaveToFloat32Channels } from '@echogarden/wave-codec';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { EspeakFailure, EspeakTask, EspeakVoiceRow, SpeakResult, VoicesResult, WarmResult } from './protocol.js';

/** What the Emscripten glue's factory takes and gives (only the parts used here). */
interface EmscriptenOptions {
  arguments: string[];
  print: (line: string) => void;
  printErr: (line: string) => void;
  quit: (status: number, toThrow: unknown) => never;
  preRun: ((module: EmscriptenModule) => void)[];
  instantiateWasm: (imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => object;
}
interface EmscriptenModule {
  addRunDependency(id?: string): void;
  removeRunDependency(id?: string): void;
  FS: {
    writeFile(path: string, data: string | Uint8Array): void;
    readFile(path: string): Uint8Array;
    readdir(path: string): string[];
  };
}
type Factory = (options: EmscriptenOptions) => Promise<EmscriptenModule>;

interface Loaded {
  factory: Factory;
  wasm: WebAssembly.Module;
}

const loaded = new Map<string, Promise<Loaded>>();

/** espeak's data folder inside the module's file system (baked into the wasm). */
const DATA_DIR = '/usr/local/share/espeak-ng-data';
const IN_FILE = '/keel-in.txt';
const OUT_FILE = '/keel-out.wav';

export default async function handle(task: EspeakTask): Promise<VoicesResult | SpeakResult | WarmResult | EspeakFailure> {
  let mod: Loaded;
  try {
    mod = await load(task.modulePath);
  } catch (err) {
    return { ok: false, code: 'runtime_missing', message: `Could not load espeak-ng from ${task.modulePath}: ${(err as Error).message}` };
  }
  try {
    if (task.op === 'warm') {
      makeSpare(mod);
      return { ok: true, warmed: true };
    }
    if (task.op === 'voices') return await voices(mod);
    const result = await speak(mod, task.text, task.voice, task.wpm);
    // The samples move to the host instead of being copied (a paragraph is megabytes).
    if (result.ok) return move({ [transferableSymbol]: [result.samples.buffer], [valueSymbol]: result } as Parameters<typeof move>[0]) as unknown as SpeakResult;
    return result;
  } catch (err) {
    return { ok: false, code: 'engine_error', message: (err as Error).message };
  }
}

function load(modulePath: string): Promise<Loaded> {
  let entry = loaded.get(modulePath);
  if (!entry) {
    entry = (async () => {
      const glue = (await import(pathToFileURL(modulePath).href)) as { default: Factory };
      const wasmFile = path.join(path.dirname(modulePath), path.basename(modulePath, '.js') + '.wasm');
      const wasm = await WebAssembly.compile(await readFile(wasmFile));
      return { factory: glue.default, wasm };
    })();
    loaded.set(modulePath, entry);
    entry.catch(() => loaded.delete(modulePath));
  }
  return entry;
}

interface Run {
  module: EmscriptenModule;
  status: number;
  out: string[];
  err: string[];
}

/** An instance made ahead of a request and held just before `main` (by a run dependency). */
interface Prepared {
  /** Runs espeak's `main` with `args` (each one argv element, never a shell line), `input` in IN_FILE. */
  start(args: string[], input?: string): Promise<Run>;
}

function prepare(mod: Loaded): Prepared {
  // The glue keeps this very array as argv: filled when the request arrives.
  const args: string[] = [];
  const out: string[] = [];
  const err: string[] = [];
  let status = 0;
  let fail!: (e: unknown) => void;
  const failed = new Promise<never>((_, reject) => { fail = reject; });
  let held: EmscriptenModule | undefined;
  let isHeld!: () => void;
  const ready = new Promise<void>((resolve) => { isHeld = resolve; });
  const instance = Promise.race([failed, mod.factory({
    arguments: args,
    print: (line) => out.push(line),
    printErr: (line) => {
      // The glue reports the exit status this way when `main` returns instead of calling exit().
      const exited = /^program exited \(with status: (\d+)\)/.exec(line);
      if (exited) status = Number(exited[1]);
      else err.push(line);
    },
    // The default on Node sets process.exitCode, which in a worker would mark the thread failed.
    quit: (code, toThrow) => { status = code; throw toThrow; },
    // Runs once instantiated: hold `main` back until `start` (no id: no watchdog timer while held).
    preRun: [(m) => { held = m; m.addRunDependency(); isHeld(); }],
    instantiateWasm: (imports, done) => {
      WebAssembly.instantiate(mod.wasm, imports).then((inst) => done(inst, mod.wasm)).catch(fail);
      return {};
    },
  })]);
  instance.catch(() => undefined); // surfaced by `start`
  return {
    async start(a, input) {
      await Promise.race([ready, failed]);
      args.push(...a);
      if (input !== undefined) held!.FS.writeFile(IN_FILE, input);
      // espeak probes many files that do not exist; the glue builds an Error with a demangled stack
      // trace for each miss (a fifth of the thread's time). No stack is needed: the miss is expected.
      const stackTraceLimit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      try {
        // Releasing the hold runs `main` synchronously, here.
        held!.removeRunDependency();
      } catch (e) {
        // A trap inside espeak (the glue's quit rethrows it).
        return { module: held!, status: status || 1, out, err: [...err, (e as Error).message ?? String(e)] };
      } finally {
        Error.stackTraceLimit = stackTraceLimit;
      }
      return { module: await instance, status, out, err };
    },
  };
}

/** One spare instance per thread, made after each request so the next one skips instantiation. */
let spare: { mod: Loaded; prepared: Prepared } | undefined;

function takeInstance(mod: Loaded): Prepared {
  const s = spare;
  spare = undefined;
  return s && s.mod === mod ? s.prepared : prepare(mod);
}

function makeSpare(mod: Loaded): void {
  // After the answer is posted: the next instance is made while the thread would idle.
  setImmediate(() => { spare ??= { mod, prepared: prepare(mod) }; });
}

function run(mod: Loaded, args: string[], input?: string): Promise<Run> {
  return prepare(mod).start(args, input);
}

async function voices(mod: Loaded): Promise<VoicesResult | EspeakFailure> {
  const listing = await run(mod, ['--voices']);
  if (listing.status !== 0) return { ok: false, code: 'engine_error', message: listing.err.join(' ') || `espeak exited with ${listing.status}` };
  const version = await run(mod, ['--version']);
  let variants: string[];
  try {
    // Names only: a variant with a space or punctuation could not be passed safely as `voice+variant`.
    variants = listing.module.FS.readdir(`${DATA_DIR}/voices/!v`).filter((n) => /^[A-Za-z0-9_-]+$/.test(n)).sort();
  } catch {
    variants = [];
  }
  return { ok: true, voices: parseVoices(listing.out), variants, version: (version.out[0] ?? '').replace(/\s+Data at:.*$/, '').trim() };
}

/** Parses `espeak-ng --voices`: `Pty Language Age/Gender VoiceName File Other Languages`. */
export function parseVoices(lines: string[]): EspeakVoiceRow[] {
  const rows: EspeakVoiceRow[] = [];
  const seen = new Set<string>();
  for (const line of lines) {
    const m = /^\s*(\d+)\s+(\S+)\s+\S*\/(\S+)\s+(\S+)\s+(\S+)\s*(.*)$/.exec(line);
    if (!m) continue; // the header
    const [, pty, name, gender, label, file, rest] = m as unknown as [string, string, string, string, string, string, string];
    if (seen.has(name)) continue;
    seen.add(name);
    const others = [...rest.matchAll(/\(([^\s()]+)\s+(\d+)\)/g)].map((o) => ({ language: o[1]!, priority: Number(o[2]) }));
    rows.push({ priority: Number(pty), name, gender: gender === '-' ? '' : gender, label: label.replace(/_/g, ' '), file, others });
  }
  return rows;
}

async function speak(mod: Loaded, text: string, voice: string, wpm: number): Promise<SpeakResult | EspeakFailure> {
  // The text goes through a file (`-f`), never argv: it cannot become a flag, and a long text does not
  // land on the module's 64 KiB C stack where argv lives. `-b 1`: the file is UTF-8.
  const r = await takeInstance(mod).start(['-b', '1', '-v', voice, '-s', String(wpm), '-w', OUT_FILE, '-f', IN_FILE], text);
  makeSpare(mod);
  if (r.status !== 0) return { ok: false, code: 'engine_error', message: r.err.join(' ') || `espeak exited with ${r.status}` };
  let wav: Uint8Array;
  try {
    wav = r.module.FS.readFile(OUT_FILE);
  } catch {
    return { ok: false, code: 'engine_error', message: r.err.join(' ') || 'espeak wrote no audio.' };
  }
  const audio = decodeWaveToFloat32Channels(wav, true, true);
  const samples = audio.audioChannels[0] ?? new Float32Array(0);
  return { ok: true, samples, sampleRate: audio.sampleRate };
}
