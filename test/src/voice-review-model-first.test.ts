/**
 * Review of issue 17: an OpenAI client's stock request (`model: "tts-1", voice: "alloy"`) against
 * the local default is told first what to change first: the model (the voice list depends on it).
 */
import { expect } from 'chai';
import { voiceKernel } from './helpers/voice-flows-kernel.js';

describe('voice review: the model is checked before the voice', function () {
  this.timeout(300_000);
  const gw = voiceKernel();
  before(() => gw.boot());
  after(() => gw.stop());

  it('POST /v1/audio/speech {model: "tts-1", voice: "alloy"} names the model', async () => {
    const res = await gw.k.inject({ method: 'POST', url: '/v1/audio/speech', token: gw.bob, payload: JSON.stringify({ input: 'Hi.', model: 'tts-1', voice: 'alloy' }), headers: { 'content-type': 'application/json' } });
    expect(res.statusCode, res.body).to.equal(400);
    expect(res.json<{ error: { message: string; code: string } }>().error).to.include({ code: 'unknown_model', message: "espeak has no model 'tts-1'; its only model is 'espeak-ng'." });
  });
});
