import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { encodeSse } from '@keel/plugin-sdk';
import { probePlugin, probeToken } from './fixtures/kernel-probe-plugin.js';
import { until } from './helpers/until.js';
import { openSse } from './helpers/sse.js';

/** Reads the stream to its end (the server ends it). */
const toTheEnd = { until: () => false, what: 'the end of the stream' };

describe('the SDK SSE helper', () => {
  it('serialises an event once into wire bytes, with multi-line data split into data: lines', () => {
    expect(encodeSse({ event: 'step', id: 3, data: { a: 1 } }).toString()).to.equal('event: step\nid: 3\ndata: {"a":1}\n\n');
    expect(encodeSse({ data: 'one\ntwo' }).toString()).to.equal('data: one\ndata: two\n\n');
  });

  describe('over a real listener', () => {
    let kernel: TestKernel;
    let url: string;
    before(async () => {
      kernel = await createTestKernel({ plugins: [probePlugin] });
      url = (await kernel.listen()).url;
    });
    after(() => kernel.stop());
    const auth = () => ({ authorization: `Bearer ${kernel.adminToken}` });

    it('streams events with ids in order, then ends', async () => {
      const stream = await openSse(`${url}/api/gateway/probe/events?count=3`, { headers: auth() });
      const res = stream.response;
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
      expect(res.headers.get('cache-control')).to.contain('no-cache');
      await stream.collect(toTheEnd);
      const { text, ended } = stream;
      expect(ended).to.equal(true);
      const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      expect(ids).to.deep.equal([1, 2, 3]);
      expect(text.trim().endsWith('event: done\ndata: {}')).to.equal(true);
    });

    it('sends heartbeat comments on an idle stream', async () => {
      const stream = await openSse(`${url}/api/gateway/probe/events?count=0&heartbeat_ms=50`, { headers: auth() });
      await stream.collect({ until: (s) => (s.text.match(/: ping/g) ?? []).length >= 2, what: 'two heartbeats' });
      await stream.close();
      const { text } = stream;
      expect(text).to.contain(': ping\n\n');
    });

    it('cuts off a subscriber that does not read instead of buffering without bound', async () => {
      // 2000 events of 64 KiB against a 256 KiB buffer: a reader that never reads must be cut off.
      const state = kernel.resolve(probeToken);
      const closed = state.closes.length;
      const stream = await openSse(`${url}/api/gateway/probe/events?count=2000&size=65536&max_buffer=262144`, { headers: auth() });
      // Not read until the server has ended the stream, and said why.
      await until(() => state.closes.slice(closed), { ok: (closes) => closes.length > 0, deadline: 30_000, what: 'the server to close the stream' });
      expect(state.closes[closed]).to.equal('slow_consumer');
      const { text, ended } = await stream.collect({ ...toTheEnd, deadline: 10_000 }).then(
        () => stream,
        () => ({ text: '', ended: true }),
      );
      expect(ended).to.equal(true);
      expect(text).to.not.contain('event: done');
    });

    it('ends open streams when the kernel stops, and stops plugins', async () => {
      // A stop that waited for the stream to end by itself would outlast the test's timeout.
      const local = await createTestKernel({ plugins: [probePlugin], config: { server: { shutdownTimeoutMs: 600_000 } } });
      const localUrl = (await local.listen()).url;
      const state = local.resolve(probeToken);
      expect(state.started).to.equal(true);
      const stream = await openSse(`${localUrl}/api/gateway/probe/events?count=1&heartbeat_ms=1000`, { token: local.adminToken });
      const reading = stream.collect(toTheEnd);
      await local.stop();
      await reading;
      expect(stream.ended).to.equal(true);
      expect(state.stopped).to.equal(true);
      await local.stop(); // idempotent
    });
  });
});
