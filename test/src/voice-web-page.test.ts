/**
 * The voice page in a real Chromium against a real gateway with the voice plugin on its local
 * engines: the token form (a wrong token refused with the gateway's sentence, never kept), typing
 * text and hearing it (the WAV the page plays), and recording from the microphone, which is
 * Chromium's fake capture device playing a WAV espeak made (`--use-file-for-fake-audio-capture`),
 * then reading the transcript pocketsphinx made of it (grammar mode, from the page's expected
 * phrases). Screenshots at 1280×900 go to `KEEL_SCREENSHOTS` (default: a temp folder).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { decodeWaveToFloat32Channels, encodeWaveFromFloat32Channels } from '@echogarden/wave-codec';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, skipWithoutChromium, waitForAsync, watchProblems } from './helpers/team-page.js';
import { tempDir } from './helpers/paths.js';
import { skipWithoutPocketsphinx, voiceKernel } from './helpers/voice-flows-kernel.js';

const DESKTOP = { width: 1280, height: 900 };
const SHOTS = process.env.KEEL_SCREENSHOTS ?? path.join(os.tmpdir(), 'keel-voice-page');
const PHRASE = 'open the door';

/** `wav` with `before` and `after` seconds of silence around it (the capture starts with the device; the phrase must be whole in the recording). */
function padded(wav: Buffer, before: number, after: number): Buffer {
  const decoded = decodeWaveToFloat32Channels(wav);
  const rate = decoded.sampleRate;
  const speech = decoded.audioChannels[0]!;
  const out = new Float32Array(Math.round((before + after) * rate) + speech.length);
  out.set(speech, Math.round(before * rate));
  return Buffer.from(encodeWaveFromFloat32Channels([out], rate, 16));
}

describe('voice page in Chromium (type and hear, record and read)', function () {
  this.timeout(300_000);
  const gw = voiceKernel();
  const tmp = tempDir('keel-voice-page-');
  let base: string;
  let browser: Browser;
  let page: Page;
  let audioSeconds = 0;
  const problems: string[] = [];

  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

  before(async function () {
    skipWithoutChromium(this);
    skipWithoutPocketsphinx(this);
    mkdirSync(SHOTS, { recursive: true });
    console.log(`      screenshots: ${SHOTS}`);
    await gw.boot();
    base = (await gw.k.listen()).url;
    // The microphone's sound: the phrase as espeak says it, made through the plugin's own route.
    const said = await gw.k.inject({ method: 'POST', url: '/voice/api/tts', token: gw.bob, payload: { input: PHRASE } });
    expect(said.statusCode, said.body).to.equal(200);
    const wav = padded(said.rawPayload, 0.4, 1.2);
    const decoded = decodeWaveToFloat32Channels(wav);
    audioSeconds = decoded.audioChannels[0]!.length / decoded.sampleRate;
    const file = path.join(tmp.dir, 'microphone.wav');
    writeFileSync(file, wav);
    browser = await launchChromium([
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      // Played once, from the moment the page opens the microphone.
      `--use-file-for-fake-audio-capture=${file}%noloop`,
      '--autoplay-policy=no-user-gesture-required',
    ]);
    const ctx = await browser.newContext({ viewport: DESKTOP });
    await ctx.grantPermissions(['microphone'], { origin: base });
    page = await ctx.newPage();
    watchProblems(problems, 'voice page', page);
  });

  after(async () => {
    await browser?.close();
    await gw.stop();
    tmp.remove();
  });

  it('asks for the gateway token; a wrong one is refused with the sentence and not kept', async () => {
    await page.goto(`${base}/voice/ui/`);
    const input = page.getByLabel('Token', { exact: true });
    await input.waitFor();
    await shot('1-token');
    await input.fill('not-a-token');
    await page.getByTestId('token-submit').click();
    const error = page.getByTestId('token-error');
    await error.waitFor({ state: 'visible' });
    expect(await error.textContent()).to.match(/\w+/);
    expect(await page.evaluate('sessionStorage.length')).to.equal(0);
    await page.getByLabel('Token', { exact: true }).fill(gw.bob);
    await page.getByTestId('token-submit').click();
    await page.getByTestId('voice-main').waitFor();
    expect(await page.getByTestId('status-line').textContent()).to.include('Speech: espeak');
    await shot('2-signed-in');
  });

  it('types text and hears it: the page plays the WAV the plugin spoke', async () => {
    await page.getByTestId('speak-text').fill('Hello from the voice page.');
    await page.getByTestId('speak-button').click();
    const player = page.getByTestId('speak-audio');
    await waitForAsync(async () => (await player.evaluate((a) => { const audio = a as unknown as { readyState: number; duration: number }; return audio.readyState >= 1 && audio.duration > 0.3; })), 60_000, 'the spoken audio to load in the player');
    expect(await player.evaluate((a) => (a as unknown as { src: string }).src.startsWith('blob:'))).to.equal(true);
    const bytes = Number(await page.locator('form[data-spoken]').getAttribute('data-spoken'));
    expect(bytes).to.be.greaterThan(1000);
    expect(await page.getByTestId('speak-info').textContent()).to.match(/KiB of audio\/wav/);
    await shot('3-spoken');
  });

  it('records from the microphone and reads the transcript', async () => {
    await page.getByTestId('listen-phrases').fill(`${PHRASE}\nturn the lights on\ngood morning`);
    await page.getByTestId('record-button').click();
    await page.getByTestId('record-button').filter({ hasText: 'Stop' }).waitFor();
    const seconds = page.getByTestId('listen-seconds');
    // The fake device plays the file once: record until all of it has been heard.
    await waitForAsync(async () => Number((await seconds.getAttribute('data-seconds')) ?? 0) >= audioSeconds + 0.3, 60_000, `${audioSeconds.toFixed(1)} s of microphone audio`);
    await shot('4-recording');
    await page.getByTestId('record-button').click();
    const transcript = page.getByTestId('transcript');
    await waitForAsync(async () => (await transcript.getAttribute('data-done')) === 'true' || !(await page.getByTestId('page-error').isHidden()), 120_000, 'the transcript');
    expect(await page.getByTestId('page-error').isHidden(), (await page.getByTestId('page-error').textContent()) ?? '').to.equal(true);
    expect(await transcript.textContent()).to.equal(PHRASE);
    await shot('5-transcribed');
    expect(problems).to.deep.equal([]);
  });
});
