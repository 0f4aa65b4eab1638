/**
 * The audio worker module (a piscina thread): decoding, resampling and re-encoding an upload takes
 * up to most of a second for a 25 MB file, which must not stall the server's event loop.
 */
import { VoiceError } from '@keel/voice';
import { loadResampler, toModelWav, type AudioLimits } from './audio.js';

export interface PrepareTask {
  op: 'prepare';
  bytes: Uint8Array;
  limits: AudioLimits;
}

export interface WarmTask {
  op: 'warm';
}

export type AudioTask = PrepareTask | WarmTask;

export type AudioResult =
  | { ok: true; wav: Uint8Array; seconds: number }
  | { ok: true; warmed: true }
  /** A VoiceError's fields (the class does not cross the thread boundary). */
  | { ok: false; status: number; code: string; message: string };

export default async function handle(task: AudioTask): Promise<AudioResult> {
  try {
    if (task.op === 'warm') {
      await loadResampler();
      return { ok: true, warmed: true };
    }
    const bytes = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength);
    const { wav, seconds } = await toModelWav(bytes, task.limits);
    return { ok: true, wav, seconds };
  } catch (err) {
    if (err instanceof VoiceError) return { ok: false, status: err.status, code: err.code, message: err.message };
    return { ok: false, status: 500, code: 'engine_error', message: `The audio could not be prepared: ${(err as Error).message}` };
  }
}
