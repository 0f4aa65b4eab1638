/**
 * Review of issue 17: every refusal of the web example's routes (reference B.15) is
 * `{detail: "<sentence>"}`, the shape its page and clients show verbatim — also when the refusal
 * comes from the engine (a format espeak cannot write, a language it lacks, a word pocketsphinx's
 * dictionary does not know), from the body parser (not JSON) or from an unknown path.
 */
import { expect } from 'chai';
import type { InjectResponse } from '@keel/plugin-sdk/testing';
import { form } from './helpers/artifacts.js';
import { skipWithoutPocketsphinx, voiceKernel } from './helpers/voice-flows-kernel.js';
import { toneWav } from './helpers/voice-remote.js';

const sentence = (res: InjectResponse, status: number): string => {
  expect(res.statusCode, res.body).to.equal(status);
  const body = res.json<{ detail: unknown }>();
  expect(body.detail, res.body).to.be.a('string');
  return body.detail as string;
};

describe('voice review: the web example answers every refusal as {detail: "<sentence>"}', function () {
  this.timeout(300_000);
  const gw = voiceKernel();
  before(() => gw.boot());
  after(() => gw.stop());

  const post = (url: string, payload: string) =>
    gw.k.inject({ method: 'POST', url, token: gw.bob, payload, headers: { 'content-type': 'application/json' } });

  it('an engine refusal of /api/tts is a sentence', async () => {
    expect(sentence(await post('/voice/api/tts', JSON.stringify({ input: 'hi', format: 'mp3' })), 400)).to.equal('Unsupported audio format: mp3');
  });

  it('a body that is not JSON and an unknown path are sentences too', async () => {
    expect(sentence(await post('/voice/api/tts', 'not json'), 400)).to.match(/not valid JSON/);
    expect(sentence(await gw.k.inject({ method: 'GET', url: '/voice/api/nothing-here', token: gw.bob }), 404)).to.match(/No route GET \/voice\/api\/nothing-here/);
    expect(sentence(await gw.k.inject({ method: 'GET', url: '/voice/api/status' }), 401)).to.match(/^Sign in first/);
  });

  it('a grammar word pocketsphinx does not know is a sentence', async function () {
    skipWithoutPocketsphinx(this);
    const body = form([{ name: 'file', filename: 'a.wav', contentType: 'audio/wav', bytes: toneWav(1) }, { name: 'prompt', value: 'grammar: zzqxv' }]);
    const res = await gw.k.inject({ method: 'POST', url: '/voice/api/stt/transcriptions', token: gw.bob, payload: body.payload, headers: body.headers });
    expect(sentence(res, 400)).to.include("does not know 'zzqxv'");
  });
});
