import { expect } from 'chai';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { framesOf, post, startRelay, trafficRecords, type RelayKernel } from './helpers/relay-hosted.js';
import { makeStandIn, type StandIn } from './helpers/relay-cli-standin.js';
import { until } from './helpers/until.js';

// The cli lane's failure paths and contracts through the relay's HTTP API, with small stand-in
// clients as `cli.command`: every failure is a real status before the first content frame and an
// in-band error after it; argv, stdin, environment and working directory are as reference §4.3 says.
describe('relay cli: failures, argv and environment with stand-in clients', function () {
  this.timeout(120_000);
  let standIn: StandIn;
  const relays: RelayKernel[] = [];

  before(() => {
    standIn = makeStandIn();
  });
  after(async () => {
    await Promise.all(relays.map((r) => r.kernel.stop()));
  });

  async function relayFor(mode: string, cli: Record<string, unknown> = {}, rest: Record<string, unknown> = {}): Promise<RelayKernel> {
    const relay = await startRelay([], { hosted: { enabled: false }, cli: { command: standIn.command(mode), models: ['fake'], ...cli }, ...rest });
    relays.push(relay);
    return relay;
  }

  const chat = (extra: Record<string, unknown> = {}) => ({ model: 'cli:fake', messages: [{ role: 'user', content: 'hello' }], ...extra });

  function expectError(answer: { status: number; json: Record<string, unknown> }, status: number, code: string, message?: RegExp): void {
    expect(answer.status, JSON.stringify(answer.json)).to.equal(status);
    const error = answer.json.error as Record<string, unknown>;
    expect(error.code).to.equal(code);
    expect(answer.json.detail).to.equal(error.message);
    if (message) expect(error.message).to.match(message);
  }

  function calls(): Array<{ pid: number; mode: string; event: 'start' | 'end'; at: number }> {
    const file = path.join(standIn.dir, 'calls.log');
    return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { pid: number; mode: string; event: 'start' | 'end'; at: number }) : [];
  }

  it('answers an exit-0 error envelope with 502 provider_failure (its text, never content), stream or not', async () => {
    const relay = await relayFor('error-envelope');
    expectError(await post(relay, '/chat/completions', chat()), 502, 'provider_failure', /^The model is overloaded right now\.$/);
    const streamed = await post(relay, '/chat/completions', chat({ stream: true }));
    expectError(streamed, 502, 'provider_failure', /overloaded/);
    expect(streamed.headers.get('content-type')).to.match(/json/);
  });

  it('answers a non-zero exit with 502: the envelope result text, else stderr', async () => {
    expectError(await post(await relayFor('exit-with-result'), '/chat/completions', chat()), 502, 'provider_failure', /^Credit balance is too low\.$/);
    const relay = await relayFor('exit-with-stderr');
    expectError(await post(relay, '/chat/completions', chat()), 502, 'provider_failure', /the client crashed/);
    expectError(await post(relay, '/completions', { model: 'cli:fake', prompt: 'x', stream: true }), 502, 'provider_failure', /the client crashed/);
  });

  it('answers invalid JSON output with 502', async () => {
    expectError(await post(await relayFor('invalid-json'), '/chat/completions', chat()), 502, 'provider_failure', /no valid JSON/);
  });

  it('kills a hanging client after cli.timeoutSeconds and answers 504 provider_timeout', async () => {
    const relay = await relayFor('hang', { timeoutSeconds: 1 });
    expectError(await post(relay, '/chat/completions', chat()), 504, 'provider_timeout', /within 1 s/);
    const pid = Number(readFileSync(path.join(standIn.dir, 'hang.pid'), 'utf8'));
    await until(() => !alive(pid), { what: 'the hung client was killed', deadline: 20_000 });
    expectError(await post(relay, '/chat/completions', chat({ stream: true })), 504, 'provider_timeout');
  });

  it('answers a missing binary with 503 provider_unavailable', async () => {
    const relay = await startRelay([], { hosted: { enabled: false }, cli: { command: ['/nonexistent/keel-relay-client'], models: ['fake'] } });
    relays.push(relay);
    expectError(await post(relay, '/chat/completions', chat()), 503, 'provider_unavailable', /not installed or not on PATH/);
    expectError(await post(relay, '/chat/completions', chat({ stream: true })), 503, 'provider_unavailable');
  });

  it('after the first content frame, a failure is an in-band error event without [DONE]', async () => {
    const failing = await post(await relayFor('delta-then-error'), '/chat/completions', chat({ stream: true }));
    expect(failing.status).to.equal(200);
    const frames = framesOf(failing.text).map((f) => f.data);
    expect(JSON.parse(frames[0]!).choices[0].delta).to.deep.equal({ role: 'assistant', content: 'partial ' });
    expect(JSON.parse(frames.at(-1)!)).to.deep.equal({ error: { message: 'The client lost its connection.', type: 'provider_failure', param: null, code: 'provider_failure' } });
    expect(frames).to.not.include('[DONE]');

    const hung = await post(await relayFor('delta-then-hang', { timeoutSeconds: 1 }), '/chat/completions', chat({ stream: true }));
    expect(hung.status).to.equal(200);
    const last = JSON.parse(framesOf(hung.text).at(-1)!.data) as { error: { code: string } };
    expect(last.error.code).to.equal('provider_timeout');
  });

  it('kills the client when the HTTP client goes away, streaming or not', async () => {
    const relay = await relayFor('delta-then-hang', { timeoutSeconds: 600 });
    const streaming = new AbortController();
    const res = await fetch(`${relay.url}/v1/chat/completions`, { method: 'POST', signal: streaming.signal, headers: { authorization: `Bearer ${relay.token}`, 'content-type': 'application/json' }, body: JSON.stringify(chat({ stream: true })) });
    expect(res.status).to.equal(200);
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).to.match(/partial/);
    const streamPid = Number(readFileSync(path.join(standIn.dir, 'stream-hang.pid'), 'utf8'));
    expect(alive(streamPid)).to.equal(true);
    streaming.abort();
    await until(() => !alive(streamPid), { what: 'the streaming client was killed', deadline: 20_000 });

    const hanging = await relayFor('hang', { timeoutSeconds: 600 });
    const pidFile = path.join(standIn.dir, 'hang.pid');
    writeFileSync(pidFile, '');
    const waiting = new AbortController();
    const call = fetch(`${hanging.url}/v1/chat/completions`, { method: 'POST', signal: waiting.signal, headers: { authorization: `Bearer ${hanging.token}`, 'content-type': 'application/json' }, body: JSON.stringify(chat()) }).catch(() => null);
    const pid = await until(() => Number(readFileSync(pidFile, 'utf8')), { what: 'the non-stream client started', deadline: 30_000 });
    waiting.abort();
    await call;
    await until(() => !alive(pid), { what: 'the non-stream client was killed', deadline: 20_000 });
  });

  it('passes the argv of reference §4.3, the prompt on stdin, a fresh temporary cwd removed after the call', async () => {
    const relay = await relayFor('report');
    const answer = await post(relay, '/chat/completions', {
      model: 'cli:fake',
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'developer', content: [{ type: 'text', text: 'No jokes.' }] }, { role: 'user', content: 'hello' }],
      reasoning_effort: 'HIGH',
      response_format: { type: 'text' },
    });
    expect(answer.status, answer.text).to.equal(200);
    const report = JSON.parse((answer.json.choices as Array<{ message: { content: string } }>)[0]!.message.content) as { args: string[]; stdin: string; cwd: string };
    expect(report.args).to.deep.equal(['-p', '--model', 'fake', '--tools', '', '--setting-sources', '', '--strict-mcp-config', '--disable-slash-commands', '--no-session-persistence', '--system-prompt', 'Be brief.\n\nNo jokes.', '--effort', 'high', '--output-format', 'json']);
    expect(report.stdin).to.equal('hello');
    expect(path.basename(report.cwd)).to.match(/^keel-relay-cli-/);
    await until(() => !existsSync(report.cwd), { what: 'the temporary cwd was removed', deadline: 20_000 });
    // finish_reason length for max_tokens; usage mapped
    expect((answer.json.choices as Array<{ finish_reason: string }>)[0]!.finish_reason).to.equal('length');
    expect(answer.json.usage).to.deep.equal({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });

    const streamed = await post(relay, '/chat/completions', {
      model: 'cli:fake', stream: true, stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'one' }, { role: 'assistant', content: 'two' }, { role: 'user', content: [{ type: 'input_text', text: 'thr' }, { type: 'text', text: 'ee' }] }],
    });
    const frames = framesOf(streamed.text).map((f) => f.data);
    expect(frames.at(-1)).to.equal('[DONE]');
    const chunks = frames.slice(0, -1).map((d) => JSON.parse(d) as { choices: Array<{ delta?: { content?: string }; finish_reason: string | null }>; usage?: unknown });
    const streamedReport = JSON.parse(chunks[0]!.choices[0]!.delta!.content!) as { args: string[]; stdin: string };
    expect(streamedReport.args.slice(-4)).to.deep.equal(['--output-format', 'stream-json', '--include-partial-messages', '--verbose']);
    expect(streamedReport.stdin).to.equal('Human: one\n\nAssistant: two\n\nHuman: three\n\nAssistant:');
    expect(chunks.at(-2)!.choices[0]!.finish_reason).to.equal('length');
    expect(chunks.at(-1)!.usage).to.deep.equal({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
  });

  it('gives the client only the allow-listed environment: no API keys, no other secrets, not the relay token', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { OPENAI_API_KEY: 'sk-secret-openai', ANTHROPIC_API_KEY: 'sk-ant-secret', DEPLOY_TOKEN: 'deploy-secret', SOME_SERVICE_AUTH_TOKEN: 'tok-secret', LC_ALL: 'C.UTF-8' });
    try {
      const relay = await relayFor('report');
      const answer = await post(relay, '/completions', { model: 'cli:fake', prompt: 'x' });
      expect(answer.status, answer.text).to.equal(200);
      const text = (answer.json.choices as Array<{ text: string }>)[0]!.text;
      const env = (JSON.parse(text) as { env: Record<string, string> }).env;
      expect(text).to.not.match(/secret/);
      expect(env).to.not.have.any.keys('OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'DEPLOY_TOKEN', 'SOME_SERVICE_AUTH_TOKEN');
      expect(text).to.not.include(relay.token);
      expect(env.PATH).to.equal(process.env.PATH);
      expect(env.LC_ALL).to.equal('C.UTF-8');

      // stripApiKeyEnv false lets key variables through (a client meant to run on a key), never the relay token.
      const keyed = await relayFor('report', { stripApiKeyEnv: false });
      const keyedEnv = (JSON.parse((( await post(keyed, '/completions', { model: 'cli:fake', prompt: 'x' })).json.choices as Array<{ text: string }>)[0]!.text) as { env: Record<string, string> }).env;
      expect(keyedEnv.ANTHROPIC_API_KEY).to.equal('sk-ant-secret');
      expect(keyedEnv).to.not.have.property('DEPLOY_TOKEN');
    } finally {
      for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'DEPLOY_TOKEN', 'SOME_SERVICE_AUTH_TOKEN', 'LC_ALL']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });

  it('serves only the enforced JSON under a schema: structured_output, the first tool block in a stream, 502 for prose', async () => {
    const relay = await relayFor('structured');
    const schema = { type: 'json_schema', json_schema: { schema: { type: 'object' } } };
    const answer = await post(relay, '/chat/completions', chat({ response_format: schema }));
    expect((answer.json.choices as Array<{ message: { content: string } }>)[0]!.message.content).to.equal('{"a":1}');
    const streamed = await post(relay, '/chat/completions', chat({ response_format: schema, stream: true }));
    const content = framesOf(streamed.text).map((f) => f.data).filter((d) => d !== '[DONE]').map((d) => (JSON.parse(d) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '').join('');
    expect(content).to.equal('{"a":1}');
    expectError(await post(await relayFor('prose-under-schema'), '/chat/completions', chat({ response_format: { type: 'json_object' } })), 502, 'provider_failure', /no schema-conforming output/);
  });

  it('runs at most cli.maxConcurrentRequests clients at once; the others wait (queued_requests in the status)', async () => {
    const relay = await relayFor('wait-for-go', { maxConcurrentRequests: 1 });
    const answers = Promise.all([post(relay, '/chat/completions', chat()), post(relay, '/chat/completions', chat())]);
    const cliStatus = async () => ((await getJson(relay, '/relay/status')).providers as { cli: { active_requests: number; queued_requests: number } }).cli;
    await until(cliStatus, { what: 'one call running and one waiting for the slot', ok: (s) => s.active_requests === 1 && s.queued_requests === 1, deadline: 30_000 });
    writeFileSync(path.join(standIn.dir, 'go'), '');
    const [a, b] = await answers;
    expect([a.status, b.status]).to.deep.equal([200, 200]);
    const mine = calls().filter((c) => c.mode === 'wait-for-go');
    const starts = mine.filter((c) => c.event === 'start').sort((x, y) => x.at - y.at);
    const firstEnd = mine.find((c) => c.event === 'end' && c.pid === starts[0]!.pid)!;
    expect(starts).to.have.length(2);
    expect(starts[1]!.at).to.be.at.least(firstEnd.at);
  });

  it('reports the providers.cli status block: ready, version, auth and models from the cached probes', async () => {
    const relay = await relayFor('plain');
    const cli = await until(async () => ((await getJson(relay, '/relay/status')).providers as { cli: Record<string, unknown> }).cli, { what: 'the first readiness probe', ok: (c) => c.checked_at !== null, deadline: 30_000 });
    expect(cli).to.deep.include({ enabled: true, local_only: true, stateless_only: true, ready_for_requests: true, cli_installed: true, cli_version: '9.9.9 (stand-in)', logged_in: true, auth_method: 'none', api_provider: 'stand-in', email: 'me@example.com', subscription_type: 'local', max_concurrent_requests: 2 });
    const loggedOut = await relayFor('logged-out');
    const out = await until(async () => ((await getJson(loggedOut, '/relay/status')).providers as { cli: Record<string, unknown> }).cli, { what: 'the first readiness probe', ok: (c) => c.checked_at !== null, deadline: 30_000 });
    expect(out).to.deep.include({ ready_for_requests: false, cli_installed: true, logged_in: false });
    expect((out.notes as string[]).join(' ')).to.match(/not signed in/);
    const missing = await startRelay([], { hosted: { enabled: false }, cli: { command: ['/nonexistent/keel-relay-client'] } });
    relays.push(missing);
    const gone = await until(async () => ((await getJson(missing, '/relay/status')).providers as { cli: Record<string, unknown> }).cli, { what: 'the first readiness probe', ok: (c) => c.checked_at !== null, deadline: 30_000 });
    expect(gone).to.deep.include({ ready_for_requests: false, cli_installed: false });
    const disabled = await startRelay([], { hosted: { enabled: false }, cli: { enabled: false } });
    relays.push(disabled);
    expect(((await getJson(disabled, '/relay/status')).providers as { cli: Record<string, unknown> }).cli).to.deep.include({ enabled: false, ready_for_requests: false });
  });

  it('refuses to start with cli.enabled and gate.trustXForwardedFor both on', async () => {
    let refused: unknown;
    try {
      relays.push(await startRelay([], { hosted: { enabled: false }, gate: { trustXForwardedFor: true } }));
    } catch (err) {
      refused = err;
    }
    expect(String(refused)).to.match(/cli\.enabled and gate\.trustXForwardedFor cannot both be on/);
    relays.push(await startRelay([], { hosted: { enabled: false }, cli: { enabled: false }, gate: { trustXForwardedFor: true } }));
  });

  it('writes provider_request and provider_response records', async () => {
    const relay = await relayFor('plain');
    await post(relay, '/chat/completions', chat());
    await until(async () => (await trafficRecords(relay)).some((r) => r.phase === 'provider_response'), { what: 'provider_response record', deadline: 20_000 });
    const records = await trafficRecords(relay);
    const request = records.find((r) => r.phase === 'provider_request')!;
    expect(request.provider).to.equal('cli');
    expect(request.model).to.equal('cli:fake');
    expect(request.command).to.include('--model');
  });
});

async function getJson(relay: RelayKernel, route: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${relay.url}/v1${route}`, { headers: { authorization: `Bearer ${relay.token}` } });
  return (await res.json()) as Record<string, unknown>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
