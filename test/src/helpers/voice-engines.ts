/**
 * Shared by the voice tests: real audio from the espeak engine as WAV bytes, and the skip rule for
 * tests that need Debian's pocketsphinx (a test whose component is missing skips with the package names).
 */
import { encodeWaveFromFloat32Channels } from '@echogarden/wave-codec';
import type { PcmAudio } from '@keel/voice';
import { EspeakEngine } from '@keel/engine-espeak';
import { PocketsphinxEngine, POCKETSPHINX_INSTALL } from '@keel/engine-pocketsphinx';

export const POCKETSPHINX_SKIP = `install the Debian packages pocketsphinx pocketsphinx-en-us (${POCKETSPHINX_INSTALL})`;

/** Skips the calling suite or test, with the sentence naming the packages, when pocketsphinx is absent. */
export async function requirePocketsphinx(ctx: Mocha.Context): Promise<void> {
  const availability = await new PocketsphinxEngine().availability();
  if (!availability.available) {
    console.warn(`      skipped: ${availability.reason} ${POCKETSPHINX_SKIP}`);
    ctx.skip();
  }
}

/** 16-bit PCM WAV bytes of float samples. */
export function wavBytes(audio: PcmAudio): Buffer {
  return Buffer.from(encodeWaveFromFloat32Channels([audio.samples], audio.sampleRate, 16));
}

/** Speaks `text` with a short-lived espeak engine and answers the WAV bytes. */
export async function spokenWav(text: string, speed = 1): Promise<Buffer> {
  const engine = new EspeakEngine({ maxThreads: 1 });
  try {
    return wavBytes(await engine.synthesize({ text, language: 'en', speed }, 'wav'));
  } finally {
    await engine.close();
  }
}
