import { expect } from 'chai';
import { RelayUpstream } from './helpers/relay-upstream.js';
import { post, startRelay, type RelayKernel } from './helpers/relay-hosted.js';

/**
 * Reference §8 items 1 and 2: an upstream stream that closes before any event is a classified error
 * with a real status on every route, streamed or not: never an empty 200, never a stream header.
 */
describe('relay review: no empty 200 from an upstream that says nothing', function () {
  this.timeout(120_000);
  let upstream: RelayUpstream;
  let relay: RelayKernel;

  before(async () => {
    upstream = new RelayUpstream();
    upstream.account('key-a');
    await upstream.start();
    relay = await startRelay([{ apiKey: 'key-a', baseUrl: upstream.url }]);
  });
  after(async () => {
    await relay?.kernel.stop();
    await upstream?.stop();
  });

  const bodies: Array<[string, Record<string, unknown>]> = [
    ['/chat/completions', { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }],
    ['/completions', { model: 'gpt-test', prompt: 'hi' }],
    ['/responses', { model: 'gpt-test', input: 'hi' }],
  ];

  for (const [route, body] of bodies) {
    for (const stream of [false, true]) {
      it(`answers ${route} (stream ${stream}) with 502 JSON when the upstream stream ends before any event`, async () => {
        upstream.script('key-a', [{ drop: true, before: 0 }]);
        const answer = await post(relay, route, { ...body, stream });
        expect(answer.status, answer.text).to.equal(502);
        expect(answer.headers.get('content-type')).to.match(/json/);
        // A chat upstream may have sent its role chunk first: then the stream is incomplete rather than empty.
        expect((answer.json.error as Record<string, unknown>).code).to.be.oneOf(['empty_stream', 'incomplete_stream']);
      });
    }
  }
});
