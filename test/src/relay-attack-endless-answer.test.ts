/**
 * Attack: an upstream that sends an answer without end (many small deltas, each under
 * hosted.maxEventBytes) must not grow the relay's memory without bound: the answer the relay adds
 * up is capped by hosted.maxAnswerChars (502 upstream_answer_too_large), and the relay stays up.
 */
import { expect } from 'chai';
import { RelayUpstream } from './helpers/relay-upstream.js';
import { post, startRelay, type RelayKernel } from './helpers/relay-hosted.js';

describe('relay attack: an upstream answer without end', function () {
  this.timeout(120_000);
  let upstream: RelayUpstream;
  let relay: RelayKernel;

  before(async () => {
    upstream = new RelayUpstream();
    upstream.account('key-a');
    await upstream.start();
    relay = await startRelay([{ apiKey: 'key-a', baseUrl: upstream.url }], { hosted: { maxAnswerChars: 2048 } });
  });
  after(async () => {
    await relay?.kernel.stop();
    await upstream?.stop();
  });

  it('refuses a non-stream answer past hosted.maxAnswerChars with 502 upstream_answer_too_large, then serves the next call', async () => {
    upstream.script('key-a', [{ text: 'x'.repeat(6000), chunks: 30 }]);
    const tooLong = await post(relay, '/chat/completions', { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(tooLong.status, tooLong.text).to.equal(502);
    expect((tooLong.json.error as { code: string }).code).to.equal('upstream_answer_too_large');
    upstream.script('key-a', [{ text: 'short answer' }]);
    const next = await post(relay, '/chat/completions', { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(next.status, next.text).to.equal(200);
  });

  it('ends a streamed answer past the cap in-band (no [DONE])', async () => {
    upstream.script('key-a', [{ text: 'y'.repeat(6000), chunks: 30 }]);
    const answer = await post(relay, '/chat/completions', { model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.text).to.contain('upstream_answer_too_large');
    expect(answer.text).not.to.contain('[DONE]');
  });
});
