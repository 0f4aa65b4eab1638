import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { encodeSse } from '@keel/plugin-sdk';
import { probePlugin, probeToken } from './fixtures/kernel-probe-plugin.js';
import { until } from './helpers/gateway-runs.js';

interface ReadResult {
  text: string;
  ended: boolean;
}

/** Reads an SSE response until `until` matches or the stream ends. */
async function readStream(res: Response, until: (text: string) => boolean, timeoutMs = 5000): Promise<ReadResult> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (until(text)) {
      await reader.cancel().catch(() => undefined);
      return { text, ended: false };
    }
    if (Date.now() > deadline) throw new Error(`stream timed out; got:\n${text}`);
    const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
    if (chunk.done) return { text, ended: true };
    text += decoder.decode(chunk.value, { stream: true });
  }
}

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
      const res = await fetch(`${url}/api/gateway/probe/events?count=3`, { headers: auth() });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
      expect(res.headers.get('cache-control')).to.contain('no-cache');
      const { text, ended } = await readStream(res, () => false);
      expect(ended).to.equal(true);
      const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      expect(ids).to.deep.equal([1, 2, 3]);
      expect(text.trim().endsWith('event: done\ndata: {}')).to.equal(true);
    });

    it('sends heartbeat comments on an idle stream', async () => {
      const res = await fetch(`${url}/api/gateway/probe/events?count=0&heartbeat_ms=50`, { headers: auth() });
      const { text } = await readStream(res, (t) => (t.match(/: ping/g) ?? []).length >= 2);
      expect(text).to.contain(': ping\n\n');
    });

    it('cuts off a subscriber that does not read instead of buffering without bound', async () => {
      // 2000 events of 64 KiB against a 256 KiB buffer: a reader that never reads must be cut off.
      const state = kernel.resolve(probeToken);
      const closed = state.closes.length;
      const res = await fetch(`${url}/api/gateway/probe/events?count=2000&size=65536&max_buffer=262144`, { headers: auth() });
      // Not read until the server has ended the stream, and said why.
      await until(async () => state.closes.slice(closed), (closes) => closes.length > 0, 30_000);
      expect(state.closes[closed]).to.equal('slow_consumer');
      const { text, ended } = await readStream(res, () => false, 10_000).catch(() => ({ text: '', ended: true }));
      expect(ended).to.equal(true);
      expect(text).to.not.contain('event: done');
    });

    it('ends open streams when the kernel stops, and stops plugins', async () => {
      // A stop that waited for the stream to end by itself would outlast the test's timeout.
      const local = await createTestKernel({ plugins: [probePlugin], config: { server: { shutdownTimeoutMs: 600_000 } } });
      const localUrl = (await local.listen()).url;
      const state = local.resolve(probeToken);
      expect(state.started).to.equal(true);
      const res = await fetch(`${localUrl}/api/gateway/probe/events?count=1&heartbeat_ms=1000`, { headers: { authorization: `Bearer ${local.adminToken}` } });
      const reading = readStream(res, () => false);
      await local.stop();
      expect((await reading).ended).to.equal(true);
      expect(state.stopped).to.equal(true);
      await local.stop(); // idempotent
    });
  });
});
