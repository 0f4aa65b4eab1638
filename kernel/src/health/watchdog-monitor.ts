/**
 * Watchdog monitor thread (see watchdog.ts). Runs on its own event loop, so it keeps ticking
 * while the main thread is stuck.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { HangRecord, MonitorData, MonitorMessage } from './watchdog.js';

const data = workerData as MonitorData;
const stamp = new BigInt64Array(data.shared);
const checkEveryMs = Math.max(50, Math.min(1000, data.limitMs / 4));
let blockedSince: number | null = null;
let worst = 0;
/** The open hang's record and dump frames, rewritten with the final duration when the loop recovers. */
let current: { record: HangRecord; frames: unknown[] } | null = null;

setInterval(() => void check(), checkEveryMs);

async function check(): Promise<void> {
  const last = Number(Atomics.load(stamp, 0));
  const age = Date.now() - last;
  if (age > data.limitMs) {
    worst = Math.max(worst, age);
    if (blockedSince !== null) return;
    blockedSince = last;
    const record = await describeHang(last, age);
    post({ type: 'hang', record });
  } else if (blockedSince !== null) {
    const blocked = round(worst / 1000);
    post({ type: 'hang-end', blocked_s: blocked });
    if (current?.record.dump_path) await writeDump(current.record.dump_path, { ...current.record, blocked_s: blocked }, current.frames).catch(() => undefined);
    blockedSince = null;
    worst = 0;
    current = null;
  }
}

async function describeHang(last: number, age: number): Promise<HangRecord> {
  const frame = await topFrame().catch(() => null);
  const at = new Date(last).toISOString();
  const record: HangRecord = {
    at,
    process: data.process,
    blocked_s: round(age / 1000),
    reason: `event loop blocked for more than ${data.limitMs / 1000} s`,
    top_frame: frame ? `${frame.fn} (${frame.file}:${frame.line})` : null,
    dump_path: null,
    file: frame?.file ?? null,
    line: frame?.line ?? null,
  };
  try {
    await mkdir(data.dumpDir, { recursive: true, mode: 0o700 });
    const file = path.join(data.dumpDir, `hang-${at.replace(/[:.]/g, '-')}-${data.process}.json`);
    record.dump_path = file;
    await writeDump(file, record, frame?.frames ?? []);
  } catch {
    record.dump_path = null;
  }
  current = { record, frames: frame?.frames ?? [] };
  return record;
}

/** Writes then renames, so a reader in another process never sees half a dump. */
async function writeDump(file: string, record: HangRecord, frames: unknown[]): Promise<void> {
  await writeFile(`${file}.tmp`, JSON.stringify({ ...record, frames }, null, 2), { mode: 0o600 });
  await rename(`${file}.tmp`, file);
}

interface Frame {
  fn: string;
  file: string;
  line: number;
  frames: Array<{ fn: string; file: string; line: number }>;
}

/** Pauses the main thread through the inspector just long enough to read its stack. */
function topFrame(): Promise<Frame | null> {
  return new Promise((resolve) => {
    const session = new Session();
    const finish = (frame: Frame | null) => {
      clearTimeout(timer);
      try {
        session.post('Debugger.resume');
        session.post('Debugger.disable');
        session.disconnect();
      } catch {
        /* already gone */
      }
      resolve(frame);
    };
    const timer = setTimeout(() => finish(null), 2000);
    try {
      session.connectToMainThread();
    } catch {
      finish(null);
      return;
    }
    // Frames name their script by id; Debugger.enable replays every parsed script with its url.
    const urls = new Map<string, string>();
    session.on('Debugger.scriptParsed', (message) => {
      const { scriptId, url } = message.params as { scriptId: string; url: string };
      urls.set(scriptId, url);
    });
    session.once('Debugger.paused', (message) => {
      const callFrames = (message.params as { callFrames: Array<{ functionName: string; url: string; location: { scriptId: string; lineNumber: number } }> }).callFrames;
      const frames = callFrames.slice(0, 20).map((f) => ({
        fn: f.functionName || '<anonymous>',
        file: f.url || urls.get(f.location.scriptId) || '',
        line: f.location.lineNumber + 1,
      }));
      finish(frames[0] ? { ...frames[0], frames } : null);
    });
    session.post('Debugger.enable', () => session.post('Debugger.pause'));
  });
}

function post(message: MonitorMessage): void {
  parentPort?.postMessage(message);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
