/** Runs `pocketsphinx_continuous` once: argv only (never a shell), a private temp folder, bounded time and output. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { VoiceError } from '@keel/voice';
import type { RecognitionMode } from './prompt.js';
import { jsgf, keywordFile } from './prompt.js';

export interface RunSpec {
  binary: string;
  hmm: string;
  lm: string;
  dict: string;
  tmpDir: string;
  timeoutMs: number;
  maxOutputBytes: number;
  /** Keyword threshold exponent per phone (see keywordFile). */
  keywordPerPhone: number;
}

export const POCKETSPHINX_INSTALL = 'apt-get install pocketsphinx pocketsphinx-en-us';

export async function recognize(spec: RunSpec, wav: Uint8Array, mode: RecognitionMode, dictionary: Map<string, number>, signal: AbortSignal): Promise<string> {
  // mkdtemp makes the folder 0700: other local users cannot read the audio or swap the grammar.
  const dir = await mkdtemp(path.join(spec.tmpDir, 'keel-pocketsphinx-'));
  try {
    const input = path.join(dir, 'input.wav');
    const log = path.join(dir, 'pocketsphinx.log');
    await writeFile(input, wav, { mode: 0o600 });
    const args = ['-infile', input, '-hmm', spec.hmm, '-dict', spec.dict, '-logfn', log];
    if (mode.mode === 'lm') {
      args.push('-lm', spec.lm);
    } else if (mode.mode === 'grammar') {
      const file = path.join(dir, 'grammar.jsgf');
      await writeFile(file, jsgf(mode.phrases), { mode: 0o600 });
      args.push('-jsgf', file);
    } else {
      const file = path.join(dir, 'keywords.txt');
      await writeFile(file, keywordFile(mode.phrases, dictionary, spec.keywordPerPhone), { mode: 0o600 });
      args.push('-kws', file, '-time', 'yes');
    }
    const stdout = await run(spec, args, signal, log, dir);
    return mode.mode === 'keywords' ? keywordsHeard(stdout, mode.phrases) : utterances(stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function run(spec: RunSpec, args: string[], signal: AbortSignal, log: string, dir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer: (() => void) | undefined;
    let exited = false;
    // An abort answers at once in execFile's callback while the killed process is still exiting: the
    // answer waits for the exit, so the private folder is removed only once nothing writes there.
    const settle = (fn: () => void) => {
      answer = fn;
      if (exited) fn();
    };
    const child = execFile(spec.binary, args, {
      timeout: spec.timeoutMs,
      killSignal: 'SIGKILL',
      maxBuffer: spec.maxOutputBytes,
      signal,
      env: {},
      encoding: 'utf8',
      windowsHide: true,
    }, (err, stdout) => {
      if (!err) return settle(() => resolve(stdout));
      if (signal.aborted) return settle(() => reject(signal.reason));
      const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: string | number };
      if (e.code === 'ENOENT' || e.code === 'EACCES') {
        return settle(() => reject(new VoiceError(`pocketsphinx is not available: cannot run ${spec.binary}. Install it with: ${POCKETSPHINX_INSTALL}`, 501, 'runtime_missing', POCKETSPHINX_INSTALL)));
      }
      if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
        return settle(() => reject(new VoiceError(`pocketsphinx wrote more than ${spec.maxOutputBytes} bytes of transcript; it was stopped.`, 500, 'engine_error')));
      }
      if (e.killed) return settle(() => reject(new VoiceError(`pocketsphinx did not finish within ${spec.timeoutMs} ms; it was stopped.`, 504, 'timeout')));
      void lastError(log, dir).then((detail) => settle(() => reject(new VoiceError(`pocketsphinx failed (exit ${String(e.code)})${detail}.`, 500, 'engine_error'))));
    });
    const onExit = () => {
      exited = true;
      answer?.();
    };
    // A process that never started (ENOENT) emits no exit.
    if (child.pid === undefined) exited = true;
    else child.once('exit', onExit);
  });
}

/** The last ERROR line of the log, without the private folder's path, for the failure message. */
async function lastError(log: string, dir: string): Promise<string> {
  try {
    const lines = (await readFile(log, 'utf8')).split('\n').filter((l) => l.startsWith('ERROR'));
    const line = lines.at(-1);
    return line ? `: ${line.split(dir).join('<tmp>').slice(0, 200)}` : '';
  } catch {
    return '';
  }
}

/** One line per utterance in language-model and grammar modes. */
function utterances(stdout: string): string {
  return stdout.split('\n').map((l) => l.trim()).filter((l) => l !== '').join(' ');
}

/**
 * `-time yes` in keyword mode prints `key phrase  start end probability` per detection (latest first
 * within an utterance); the answer lists them in the order they were spoken.
 */
function keywordsHeard(stdout: string, phrases: string[][]): string {
  const known = new Set(phrases.map((p) => p.join(' ')));
  const heard: { phrase: string; start: number }[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^(.+?)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+(\S+)\s*$/.exec(line.trim());
    const phrase = m?.[1]?.trim().replace(/\s+/g, ' ');
    if (phrase && known.has(phrase)) heard.push({ phrase, start: Number(m![2]) });
  }
  return heard.sort((a, b) => a.start - b.start).map((h) => h.phrase).join(' ');
}
