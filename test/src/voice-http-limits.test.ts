/**
 * Keel's voice limits tried by a hostile client (seed §8; plugin README "Limits"): work running at
 * once is bounded per account (429) and per process (503), both with Retry-After and at once (no
 * queue); a call past the deadline is 504 and its slot stays taken until the engine's work ends;
 * a burst of concurrent requests on the real local engine gets answers, never a 5xx other than 503.
 * The remote engine is the fake audio server, held open so requests really overlap.
 */
import { expect } from 'chai';
import { createAccount } from './helpers/accounts.js';
import { until } from './helpers/until.js';
import { openaiError, voiceGateway, type VoiceGateway } from './helpers/voice-kernel.js';
import { startVoiceRemote, type VoiceRemote } from './helpers/voice-remote.js';

describe('voice http: concurrency limits and the deadline', function () {
  this.timeout(180_000);
  let remote: VoiceRemote;
  before(async () => (remote = await startVoiceRemote()));
  after(() => remote?.close());

  describe('per account and per process', () => {
    let gw: VoiceGateway;
    let eve: string;
    before(async () => {
      gw = await voiceGateway({ voice: { voice_tts_engine: 'compatible', voice_remote_base_url: remote.baseUrl, limits: { maxConcurrentPerAccount: 2, maxConcurrentSyntheses: 3, retryAfterSeconds: 7 } } });
      eve = await createAccount(gw.k, 'eve');
    });
    after(() => gw?.stop());

    it('answers 429 to an account past its limit and 503 to anyone past the process limit, with Retry-After, and serves again once work ends', async () => {
      remote.hold();
      const running = [gw.speech({ input: 'one' }), gw.speech({ input: 'two' }), gw.speech({ input: 'three' }, eve)];
      try {
        await until(() => remote.waiting, { what: 'three speech calls held at the remote', ok: (n) => n === 3 });
        const mine = await gw.speech({ input: 'four' });
        const tooMany = openaiError(mine, 429);
        expect(tooMany.type).to.equal('rate_limit_error');
        expect(tooMany.message).to.contain('limits.maxConcurrentPerAccount');
        expect(mine.headers['retry-after']).to.equal('7');
        const busy = await gw.speech({ input: 'five' }, gw.admin);
        expect(openaiError(busy, 503).message).to.contain('limits.maxConcurrentSyntheses');
        expect(busy.headers['retry-after']).to.equal('7');
      } finally {
        remote.release();
      }
      for (const res of await Promise.all(running)) expect(res.statusCode, res.body.slice(0, 200)).to.equal(200);
      const after = await gw.speech({ input: 'six' });
      expect(after.statusCode, after.body.slice(0, 200)).to.equal(200);
    });
  });

  describe('the deadline', () => {
    let gw: VoiceGateway;
    before(async () => {
      gw = await voiceGateway({ voice: { voice_tts_engine: 'compatible', voice_remote_base_url: remote.baseUrl, limits: { requestTimeoutMs: 300, maxConcurrentPerAccount: 1 } } });
    });
    after(() => gw?.stop());

    it('answers 504 past limits.requestTimeoutMs, aborts the remote call, and frees the slot', async () => {
      remote.hold();
      try {
        const late = await gw.speech({ input: 'never in time' });
        const error = openaiError(late, 504);
        expect(error.message).to.contain('limits.requestTimeoutMs');
        // The aborted call ends; the account's single slot is free again (no 429).
        await until(async () => (await gw.speech({ input: 'again' })).statusCode, { what: 'the slot to be free again (504, not 429)', ok: (s) => s === 504 });
      } finally {
        remote.release();
      }
      const ok = await gw.speech({ input: 'in time now' });
      expect(ok.statusCode, ok.body.slice(0, 200)).to.equal(200);
    });
  });

  describe('a burst on the local engine', () => {
    let gw: VoiceGateway;
    before(async () => (gw = await voiceGateway({ voice: { limits: { maxConcurrentPerAccount: 4, maxConcurrentSyntheses: 2 } } })));
    after(() => gw?.stop());

    it('answers 40 concurrent syntheses of several accounts with 200, 429 or 503 only, and still serves after', async () => {
      const tokens = [gw.bob, gw.admin, await createAccount(gw.k, 'eve'), await createAccount(gw.k, 'mal')];
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => gw.speech({ input: `Burst number ${i}.` }, tokens[i % tokens.length])));
      const statuses = answers.map((a) => a.statusCode);
      expect(statuses.filter((s) => ![200, 429, 503].includes(s)), JSON.stringify(statuses)).to.deep.equal([]);
      expect(statuses).to.include(200);
      for (const refused of answers.filter((a) => a.statusCode !== 200)) expect(refused.headers['retry-after']).to.equal('1');
      const after = await gw.speech({ input: 'Still here.' });
      expect(after.statusCode, after.body.slice(0, 200)).to.equal(200);
    });
  });
});
