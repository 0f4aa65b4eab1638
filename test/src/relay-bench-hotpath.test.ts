import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { relayPlugin } from '@keel/plugin-relay';
import { createHash } from 'node:crypto';
import { snapshotOfBytes, snapshotOfJson } from '../../plugins/relay/dist/traffic/body-snapshot.js';
import { loggedHeaders, serializeRecord } from '../../plugins/relay/dist/traffic/redaction.js';
import { RelayUpstream } from './helpers/relay-upstream.js';

// What the relay benchmark found on the hot path (bench/RESULTS.md, issue 16): the upstream client
// destroyed every answer's connection (a TCP connect per call), and the fixes kept every rule.
describe('relay bench: hot path', function () {
  this.timeout(120_000);
  let upstream: RelayUpstream;
  let kernel: TestKernel;
  let url: string;
  let token: string;

  before(async () => {
    upstream = new RelayUpstream();
    upstream.account('key-a', { replies: [{ text: 'hello from upstream', chunks: 4 }] });
    await upstream.start();
    kernel = await createTestKernel({
      plugins: [{ plugin: relayPlugin, config: { hosted: { accounts: [{ email: 'a@example.com', baseUrl: upstream.url, apiKey: 'key-a' }], retryAttempts: 0 }, cli: { enabled: false } } }],
    });
    url = (await kernel.listen()).url;
    token = process.env.RELAY_TOKEN || (await readFile(path.join(kernel.dataDir, 'plugins', 'relay', 'relay-token'), 'utf8')).trim();
  });
  after(async () => {
    await kernel?.stop();
    await upstream?.stop();
  });

  async function chat(stream: boolean): Promise<{ status: number; text: string; overhead: string | null }> {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream }),
    });
    return { status: res.status, text: await res.text(), overhead: res.headers.get('x-relay-overhead-ms') };
  }

  it('keeps its upstream connection alive across calls, JSON and stream', async () => {
    const first = await chat(false);
    expect(first.status, first.text).to.equal(200);
    const opened = upstream.connections;
    for (let i = 0; i < 3; i++) {
      const json = await chat(false);
      expect(json.status, json.text).to.equal(200);
      expect((JSON.parse(json.text) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).to.equal('hello from upstream');
      const stream = await chat(true);
      expect(stream.status, stream.text).to.equal(200);
      expect(stream.text.trimEnd().endsWith('data: [DONE]')).to.equal(true);
    }
    // Six more calls, one at a time: the agent's free socket serves every one (before: one connect per call).
    expect(upstream.connections).to.equal(opened);
  });

  it('sends a stream answer whole and in order, with the overhead header', async () => {
    const answer = await chat(true);
    expect(answer.overhead).to.match(/^\d+(\.\d+)?$/);
    const deltas = answer.text.split('\n\n').filter((f) => f.startsWith('data: {')).map((f) => JSON.parse(f.slice(6)) as { choices: Array<{ delta?: { content?: string } }> });
    expect(deltas.map((d) => d.choices[0]?.delta?.content ?? '').join('')).to.equal('hello from upstream');
    expect(answer.text.trimEnd().endsWith('data: [DONE]')).to.equal(true);
  });

  it('relays an upstream chunk as the upstream wrote it when nothing changes, and compacts a multi-line event or one with usage', async () => {
    const content = '{"id": "up-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test", "choices": [{"index": 0, "delta": {"content": "h\\u00e9"}, "finish_reason": null}]}';
    upstream.script('key-a', [{
      events: [
        'data: {"id":"up-1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}',
        `data: ${content}`,
        'data: {"id":"up-1","object":"chat.completion.chunk","created":1,"model":"gpt-test",\ndata: "choices":[{"index":0,"delta":{"content":"llo"},"finish_reason":null}]}',
        'data: {"id":"up-1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":2,"completion_tokens":2}}',
        'data: [DONE]',
      ],
    }]);
    try {
      const answer = await chat(true);
      expect(answer.status, answer.text).to.equal(200);
      const frames = answer.text.split('\n\n').filter(Boolean);
      expect(frames[1]).to.equal(`data: ${content}`);
      expect(frames[2]).to.equal('data: {"id":"up-1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"content":"llo"},"finish_reason":null}]}');
      // Without stream_options.include_usage the finish chunk loses its usage (rewritten, not relayed as it is).
      expect(frames[3]).to.equal('data: {"id":"up-1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}');
      expect(frames.slice(4)).to.deep.equal(['data: [DONE]']);
    } finally {
      upstream.script('key-a', [{ text: 'hello from upstream', chunks: 4 }]);
    }
  });
});

describe('relay bench: traffic record serialisation without the replacer pass', () => {
  it('writes a record without secret keys exactly as JSON, non-ASCII escaped', () => {
    const record = { phase: 'upstream_request', request_id: 'req_1', body: { messages: [{ role: 'user', content: 'héllo' }], n: 1, ok: true, none: null } };
    expect(serializeRecord(record)).to.equal(JSON.stringify(record).replace('é', '\\u00e9'));
  });

  it('still redacts secret keys at any depth and in any case', () => {
    const line = serializeRecord({ phase: 'inbound_request', headers: { Authorization: 'Bearer sk-secret', COOKIE: 'a=b' }, body: { deep: [{ api_key: 'k1', Refresh_Token: 't' }] } });
    expect(line).not.to.match(/sk-secret|a=b|k1|"t"/);
    expect(line).to.equal('{"phase":"inbound_request","headers":{"Authorization":"[REDACTED]","COOKIE":"[REDACTED]"},"body":{"deep":[{"api_key":"[REDACTED]","Refresh_Token":"[REDACTED]"}]}}');
  });

  it('keeps error codes readable and scrubs a code elsewhere', () => {
    const line = serializeRecord({ error: { message: 'm', code: 'rate_limit_exceeded' }, oauth: { code: 'abc' } });
    expect(line).to.equal('{"error":{"message":"m","code":"rate_limit_exceeded"},"oauth":{"code":"[REDACTED]"}}');
  });

  it('leaves a secret key name inside a string value alone', () => {
    const record = { phase: 'inbound_request', body: { raw: '{"authorization":"x"}' } };
    expect(serializeRecord(record)).to.equal(JSON.stringify(record));
  });

  // Body snapshots are taken when the record is serialised (off the call's path), and a JSON body's
  // text is spliced in rather than serialised a second time: the line must be the one a snapshot
  // taken at once gives.
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');

  it('writes a JSON body snapshot exactly as the snapshot taken at once, non-ASCII escaped', () => {
    const value = { id: 'chatcmpl_1', choices: [{ message: { content: 'héllo ☕' } }], usage: { total_tokens: 3 } };
    const text = JSON.stringify(value);
    const eager = { phase: 'outbound_response', request_id: 'req_1', body: { kind: 'json', bytes: Buffer.byteLength(text), sha256: sha(text), json: value } };
    const lazy = { phase: 'outbound_response', request_id: 'req_1', body: snapshotOfJson(value) };
    expect(serializeRecord(lazy)).to.equal(serializeRecord(eager));
    expect(serializeRecord({ a: snapshotOfJson([1]), b: snapshotOfJson('x'), c: snapshotOfJson(undefined) })).to.equal(`{"a":{"kind":"json","bytes":3,"sha256":"${sha('[1]')}","json":[1]},"b":{"kind":"json","bytes":3,"sha256":"${sha('"x"')}","json":"x"},"c":{"kind":"empty","bytes":0}}`);
  });

  it('redacts a secret key inside a JSON or raw body snapshot, and leaves placeholder-like strings alone', () => {
    const line = serializeRecord({ phase: 'upstream_request', body: snapshotOfJson({ nested: { API_KEY: 'sk-9' }, note: '\u0000raw-0-0' }) });
    expect(line).not.to.contain('sk-9');
    expect(JSON.parse(line).body.json).to.deep.equal({ nested: { API_KEY: '[REDACTED]' }, note: '\u0000raw-0-0' });
    const raw = Buffer.from('{"relay_token":"t1","ok":"é"}');
    const inbound = JSON.parse(serializeRecord({ phase: 'inbound_request', body: snapshotOfBytes(raw, 'application/json') }));
    expect(inbound.body).to.deep.equal({ kind: 'json', bytes: raw.length, sha256: sha(raw.toString()), json: { relay_token: '[REDACTED]', ok: 'é' } });
    expect(JSON.parse(serializeRecord({ body: snapshotOfBytes(Buffer.from([0, 1]), 'image/png') })).body.kind).to.equal('binary_summary');
  });

  it('writes headers redacted up front exactly as the redacting pass writes them, and still scrubs a query', () => {
    const headers = { Authorization: 'Bearer sk-secret', cookie: ['a=b', 'c=d'], 'x-api-key': 'k', 'x-other': 'fine', host: '127.0.0.1' };
    for (const body of [{ model: 'm' }, { nested: { api_key: 'sk-2' } }]) {
      const early = serializeRecord({ phase: 'inbound_request', headers: loggedHeaders(headers), body });
      expect(early).to.equal(serializeRecord({ phase: 'inbound_request', headers, body }));
      expect(early).not.to.match(/sk-secret|a=b|"k"|sk-2/);
    }
    expect(headers.Authorization, 'the request\'s own headers untouched').to.equal('Bearer sk-secret');
    const line = serializeRecord({ phase: 'inbound_request', query: 'a=1&api_key=sk-3', headers: loggedHeaders({ 'x-other': 'fine' }) });
    expect(line).to.contain('"query":"a=1&api_key=[REDACTED]"');
    // A secret key whose value merely starts like the marker is still redacted.
    expect(serializeRecord({ api_key: '[REDACTED]sk-4' })).to.equal('{"api_key":"[REDACTED]"}');
  });
});
