import { expect } from 'chai';
import { RelayUpstream } from './helpers/relay-upstream.js';
import { post, startRelay, trafficRecords, type RelayKernel } from './helpers/relay-hosted.js';
import { until } from './helpers/until.js';

type Json = Record<string, unknown>;

/**
 * Traffic record kinds of reference §5.3 the hosted lane writes besides a call's summary records:
 * `upstream_response_error` for an upstream error status, and, only with `logging.streamLines`,
 * `upstream_stream_line` per upstream event and `outbound_stream_chunk` per frame sent.
 */
describe('relay review: upstream error and stream-line records', function () {
  this.timeout(120_000);
  let upstream: RelayUpstream;
  let lines: RelayKernel;
  let quiet: RelayKernel;
  const chat = { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] };

  before(async () => {
    upstream = new RelayUpstream();
    upstream.account('key-a');
    await upstream.start();
    lines = await startRelay([{ apiKey: 'key-a', baseUrl: upstream.url }], { logging: { streamLines: true } });
    quiet = await startRelay([{ apiKey: 'key-a', baseUrl: upstream.url }]);
  });
  after(async () => {
    await lines?.kernel.stop();
    await quiet?.kernel.stop();
    await upstream?.stop();
  });

  const recordsOf = async (relay: RelayKernel, phase: string) => (await trafficRecords(relay)).filter((r) => r.phase === phase);

  it('writes upstream_response_error with the status, url and the upstream body for an error status', async () => {
    const quota = { message: 'You hit your usage limit.', type: 'usage_limit_reached', code: 'usage_limit_reached', resets_in_seconds: 60 };
    upstream.script('key-a', [{ status: 429, error: quota }]);
    const answer = await post(quiet, '/chat/completions', chat);
    expect(answer.status).to.equal(429);
    const [record] = await until(() => recordsOf(quiet, 'upstream_response_error'), { what: 'an upstream_response_error record', ok: (rs) => rs.length > 0 });
    expect(record).to.include({ method: 'POST', url: `${upstream.url}/chat/completions`, status_code: 429 });
    expect(((record!.body as Json).json as Json).error).to.deep.include({ message: quota.message, code: 'usage_limit_reached' });
    expect(JSON.stringify(record)).to.not.include('key-a');
  });

  it('writes upstream_stream_line and outbound_stream_chunk for a stream only with logging.streamLines', async () => {
    for (const relay of [lines, quiet]) {
      upstream.script('key-a', [{ text: 'logged line by line' }]);
      const answer = await post(relay, '/chat/completions', { ...chat, stream: true });
      expect(answer.status).to.equal(200);
      await until(() => recordsOf(relay, 'outbound_usage'), { what: 'the call\'s outbound_usage record', ok: (rs) => rs.length > 0 });
    }
    const upstreamLines = await recordsOf(lines, 'upstream_stream_line');
    expect(upstreamLines.length).to.be.greaterThan(2);
    expect(upstreamLines.every((r) => typeof r.line === 'string' && String(r.line).includes('data: '))).to.equal(true);
    expect(upstreamLines.some((r) => r.line === 'data: [DONE]')).to.equal(true);
    expect((await recordsOf(lines, 'outbound_stream_chunk')).length).to.be.greaterThan(2);
    expect(await recordsOf(quiet, 'upstream_stream_line')).to.deep.equal([]);
    expect(await recordsOf(quiet, 'outbound_stream_chunk')).to.deep.equal([]);
  });
});

describe('relay review: the upload\'s inbound record', function () {
  this.timeout(60_000);
  let relay: RelayKernel;

  before(async () => {
    relay = await startRelay([{ apiKey: 'key-unused', baseUrl: 'http://127.0.0.1:9' }]);
  });
  after(async () => {
    await relay?.kernel.stop();
  });

  it('logs a multipart upload as {kind: multipart_upload, filename, purpose, content_type, bytes, sha256}, never its bytes', async () => {
    const form = new FormData();
    form.append('purpose', 'assistants');
    form.append('file', new Blob(['secret file text']), 'notes.txt');
    const res = await fetch(`${relay.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${relay.token}` }, body: form });
    expect(res.status).to.equal(200);
    const records = await until(() => trafficRecords(relay), { what: 'the upload\'s inbound_request', ok: (rs) => rs.some((r) => r.phase === 'inbound_request' && r.path === '/v1/files') });
    const inbound = records.find((r) => r.phase === 'inbound_request' && r.path === '/v1/files')!;
    expect(inbound.body).to.deep.include({ kind: 'multipart_upload', filename: 'notes.txt', purpose: 'assistants', content_type: 'text/plain', bytes: 16 });
    expect((inbound.body as Json).sha256).to.match(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(records)).to.not.include('secret file text');
  });
});
