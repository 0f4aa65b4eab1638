/**
 * Review of issue 17: a language espeak does not have is refused (400 "Unsupported or unavailable
 * language: x", reference B.15) on the very first request of a fresh server, as on every later one
 * (espeak learns its languages when it first reads its voice list).
 */
import { expect } from 'chai';
import { voiceKernel } from './helpers/voice-flows-kernel.js';

describe('voice review: an unknown language is refused from the first request on', function () {
  this.timeout(300_000);
  const gw = voiceKernel();
  before(() => gw.boot());
  after(() => gw.stop());

  it('POST /v1/audio/speech {language: "xx"} is a 400 before and after espeak has spoken', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await gw.k.inject({ method: 'POST', url: '/v1/audio/speech', token: gw.bob, payload: JSON.stringify({ input: 'Hello.', language: 'xx' }), headers: { 'content-type': 'application/json' } });
      expect(res.statusCode, `request ${i + 1}: ${res.body.slice(0, 200)}`).to.equal(400);
      expect(res.json<{ error: { message: string; code: string } }>().error).to.include({ message: 'Unsupported or unavailable language: xx', code: 'unsupported_language' });
    }
    const ok = await gw.k.inject({ method: 'POST', url: '/v1/audio/speech', token: gw.bob, payload: JSON.stringify({ input: 'Bonjour.', language: 'fr' }), headers: { 'content-type': 'application/json' } });
    expect(ok.statusCode, ok.body.slice(0, 200)).to.equal(200);
  });
});
