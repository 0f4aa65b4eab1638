/**
 * `POST /v1/audio/speech` with `stream_format: "audio"`: the audio is sent as it is made, segment by
 * segment (the first segment one sentence or clause of at most 60 characters, so the first audio
 * comes early), with chunked transfer. `wav` starts with a header whose sizes say "unknown length"
 * (0xFFFFFFFF, as streaming WAV writers do; readers take the data to the end of the stream), then
 * 16-bit samples; `pcm` is the samples alone. A failure before the first segment is an ordinary
 * error answer; after it, the stream is cut (the status is already sent).
 */
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { reply, type Reply } from '@keel/plugin-sdk';
import { encodePcm, type PcmAudio } from '@keel/voice';
import { contentTypeOf } from '../audio-formats.js';
import type { SpeechInput } from '../voice-service.js';
import type { VoiceRuntime } from '../voice-runtime.js';

const UNKNOWN_LENGTH = 0xffffffff;

/** A WAV header for 16-bit mono samples at `sampleRate` whose RIFF and data sizes are "unknown". */
export function streamingWavHeader(sampleRate: number): Buffer {
  const header = Buffer.from(encodePcm({ samples: new Float32Array(0), sampleRate }, 'wav').bytes);
  const data = header.indexOf('data', 12, 'latin1');
  header.writeUInt32LE(UNKNOWN_LENGTH, 4);
  header.writeUInt32LE(UNKNOWN_LENGTH, data + 4);
  return header.subarray(0, data + 8);
}

export async function streamSpeech(service: VoiceRuntime, account: string, input: SpeechInput & { format: 'wav' | 'pcm' }, signal: AbortSignal): Promise<Reply> {
  const out = new PassThrough();
  let sampleRate = 0;
  let first: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (first = resolve));
  const write = async (bytes: Buffer) => {
    if (!out.write(bytes)) await once(out, 'drain', { signal });
  };
  const onChunk = async (chunk: PcmAudio) => {
    if (sampleRate === 0) {
      sampleRate = chunk.sampleRate;
      if (input.format === 'wav') await write(streamingWavHeader(sampleRate));
      first();
    }
    await write(Buffer.from(encodePcm(chunk, 'pcm').bytes));
  };
  const { format, ...rest } = input;
  const done = service.speakStream(account, { ...rest, signal }, onChunk);
  // The answer's status waits for the first segment: an error before it is an ordinary error answer.
  await Promise.race([started, done]);
  // Text that made no audio at all: a WAV of no samples (at the engines' usual rate) still says what it is.
  if (sampleRate === 0 && format === 'wav') out.write(streamingWavHeader(16_000));
  done.then(
    () => out.end(),
    (err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))),
  );
  return reply(200, out, {
    'content-type': contentTypeOf(format),
    'content-disposition': `inline; filename="speech.${format}"`,
    'x-voice-provider': service.ttsProviderOf(input),
  });
}
