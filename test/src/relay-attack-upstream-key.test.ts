/**
 * Attack: an upstream that echoes the account's API key in an error answer (proxies and
 * OpenAI-compatible servers do: "Incorrect API key provided: sk-...") must not hand that key to the
 * relay's client, nor write it into the traffic log.
 */
import { expect } from 'chai';
import { RelayUpstream } from './helpers/relay-upstream.js';
import { post, startRelay, trafficRecords, type RelayKernel } from './helpers/relay-hosted.js';
import { until } from './helpers/until.js';

describe('relay attack: an upstream error echoing the API key', function () {
  this.timeout(120_000);
  const apiKey = 'sk-attack-upstream-key-0123456789';
  let upstream: RelayUpstream;
  let relay: RelayKernel;

  before(async () => {
    upstream = new RelayUpstream();
    upstream.account(apiKey);
    await upstream.start();
    relay = await startRelay([{ apiKey, baseUrl: upstream.url }]);
  });
  after(async () => {
    await relay?.kernel.stop();
    await upstream?.stop();
  });

  it('masks the key in the relayed error and in the traffic log', async () => {
    upstream.script(apiKey, [{ status: 400, error: { message: `Bad request for key ${apiKey} (model gpt-test).`, type: 'invalid_request_error', code: null } }]);
    const answer = await post(relay, '/chat/completions', { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.status).to.equal(400);
    expect(answer.text).not.to.contain(apiKey);
    expect((answer.json.error as { message: string }).message).to.contain('Bad request for key');
    const records = await until(() => trafficRecords(relay), { what: 'the outbound record', deadline: 30_000, ok: (r) => r.some((x) => x.phase === 'outbound_response') });
    expect(JSON.stringify(records)).not.to.contain(apiKey);
  });

  it('masks the key in an in-stream error event (streamed and not)', async () => {
    for (const stream of [true, false]) {
      upstream.script(apiKey, [{ streamError: { message: `quota gone for ${apiKey}`, type: 'server_error', code: null }, before: 1 }]);
      const answer = await post(relay, '/chat/completions', { model: 'gpt-test', stream, messages: [{ role: 'user', content: 'hi' }] });
      expect(answer.text, `stream ${stream}`).to.contain('quota gone for');
      expect(answer.text, `stream ${stream}`).not.to.contain(apiKey);
    }
  });
});
