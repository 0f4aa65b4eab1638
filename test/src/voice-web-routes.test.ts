/**
 * The web example's routes (seed §B.4, reference B.15) under the voice plugin's own prefix
 * (`/voice`), on the real boot path with the local engines: every route refuses a caller without a
 * gateway token (401), the `{detail}` sentences of B.15 for bad values, the state routes per account
 * (one account's provider, voice, role voices and codebook never reach another's requests), speech
 * and transcription through the page's routes, and the LLM model listing of a configured
 * OpenAI-shaped endpoint (bounded: unknown names, a refused upstream, a body too large, a timeout).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { decodeWaveToFloat32Channels } from '@echogarden/wave-codec';
import type { InjectResponse } from '@keel/plugin-sdk/testing';
import { form } from './helpers/artifacts.js';
import { skipWithoutPocketsphinx, voiceKernel } from './helpers/voice-flows-kernel.js';
import { startVoiceRemote, toneWav, type VoiceRemote } from './helpers/voice-remote.js';

/** An OpenAI-shaped `GET /v1/models` stand-in for an LLM server: a list, a refusal, a huge body, or never an answer. */
async function llmServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url === '/ok/v1/models') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'tiny-chat', object: 'model' }, { id: 'tiny-chat', object: 'model' }, { id: 'qwen-0.5b', object: 'model' }] }));
    } else if (req.url === '/refuse/v1/models') {
      res.statusCode = 401;
      res.end('{"error":{"message":"no"}}');
    } else if (req.url === '/huge/v1/models') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: Array.from({ length: 5000 }, (_, i) => ({ id: `model-${i}-${'x'.repeat(40)}` })) }));
    }
    // '/silent/v1/models': never answered (the listing's deadline ends it).
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

/** A JSON object the test reads fields of (shapes checked by the assertions themselves). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the routes' bodies are read field by field, each checked
type Json = Record<string, any>;

const detail = (res: InjectResponse, status: number): string => {
  expect(res.statusCode, res.body).to.equal(status);
  const body = res.json<{ detail: unknown }>();
  expect(body.detail, res.body).to.be.a('string');
  return body.detail as string;
};

describe('voice web example routes under /voice (reference B.15)', function () {
  this.timeout(300_000);
  let llm: Awaited<ReturnType<typeof llmServer>>;
  const gw = voiceKernel({
    get voice() {
      return { web: { llm: { providers: { ok: { baseUrl: `${llm.url}/ok/v1`, apiKey: 'sk-test' }, refuse: { baseUrl: `${llm.url}/refuse/v1` }, huge: { baseUrl: `${llm.url}/huge/v1` }, silent: { baseUrl: `${llm.url}/silent/v1` } }, defaultProvider: 'ok', timeoutMs: 500, maxBytes: 64 * 1024, maxModels: 10 } } };
    },
  });
  before(async () => {
    llm = await llmServer();
    await gw.boot();
  });
  after(async () => {
    await gw.stop();
    await llm?.close();
  });

  const call = (token: string | null, method: string, url: string, payload?: unknown) =>
    gw.k.inject({ method, url, ...(token ? { token } : {}), ...(payload === undefined ? {} : { payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } }) });

  it('every route answers 401 without a token (and with a wrong one); the page itself is public', async () => {
    const routes: Array<[string, string]> = [
      ['GET', '/voice/api/status'], ['GET', '/voice/api/voices'], ['POST', '/voice/api/tts/provider'], ['POST', '/voice/api/tts/engine'],
      ['POST', '/voice/api/voices/select'], ['POST', '/voice/api/voices/clone'], ['POST', '/voice/api/tts'], ['POST', '/voice/api/stt/transcriptions'],
      ['POST', '/voice/api/stt/transcribe'], ['POST', '/voice/api/qwen3-tts/codebook'], ['GET', '/voice/api/llm'], ['GET', '/voice/api/llm/models'], ['GET', '/voice/api/nothing-here'],
    ];
    for (const [method, url] of routes) {
      expect((await call(null, method, url, method === 'POST' ? {} : undefined)).statusCode, `${method} ${url}`).to.equal(401);
      expect((await call('not-a-token', method, url, method === 'POST' ? {} : undefined)).statusCode, `${method} ${url} (wrong token)`).to.equal(401);
    }
    const page = await gw.k.inject({ url: '/voice/ui/' });
    expect(page.statusCode).to.equal(200);
    expect(String(page.headers['content-type'])).to.include('text/html');
    expect(String(page.headers['content-security-policy'])).to.include("connect-src 'self'");
  });

  it('GET /api/status: the defaults (local engines), this account\'s current choices, the routes, the codebook', async () => {
    const status = (await call(gw.bob, 'GET', '/voice/api/status')).json<Json>();
    expect(status).to.include({ ok: true, status: 'ok', allow_downloads: false });
    expect(status.defaults).to.include({ language: 'en', tts_engine: 'espeak', tts_provider: 'espeak', stt_engine: 'pocketsphinx', stt_provider: 'pocketsphinx', remote_api_key_configured: false, llm_provider: 'ok' });
    expect(status.current).to.deep.include({ language: 'en', voice: null, voice_kind: 'base', role_voices: { assistant: null, user: null }, tts_provider: 'espeak', profile: null });
    expect(status.routes).to.deep.include({ method: 'POST', path: '/voice/api/tts', maps_to: 'speak_to_bytes' });
    expect(status.qwen3_tts).to.deep.equal({ predictor: 'auto', sampler: 'multinomial' });
  });

  it('POST /api/tts/provider: an unknown provider is a 400 sentence; a known one is this account\'s only; auto resolves to the local engine', async () => {
    expect(detail(await call(gw.bob, 'POST', '/voice/api/tts/provider', { provider: 'nope' }), 400)).to.match(/^Unsupported TTS provider: nope\. Allowed: auto, /);
    expect(detail(await call(gw.bob, 'POST', '/voice/api/tts/provider', {}), 400)).to.include('Missing provider');
    const set = (await call(gw.bob, 'POST', '/voice/api/tts/provider', { provider: 'espeak' })).json<Json>();
    expect(set).to.include({ ok: true, tts_engine: 'espeak', tts_provider: 'espeak' });
    const legacy = (await call(gw.bob, 'POST', '/voice/api/tts/engine', {})).json<Json>();
    expect(legacy, 'the legacy path defaults to auto: the installed local engine').to.include({ ok: true, tts_provider: 'espeak' });
    const hosted = (await call(gw.eve, 'POST', '/voice/api/tts/provider', { provider: 'openai' })).json<Json>();
    expect(hosted).to.include({ ok: true, tts_provider: 'hosted' });
    expect((await call(gw.bob, 'GET', '/voice/api/status')).json<Json>().current.tts_provider, "eve's provider is hers alone").to.equal('espeak');
    // Hosted without a key: speech says what is missing (and nothing of it reaches bob).
    const refused = await call(gw.eve, 'POST', '/voice/api/tts', { input: 'hello' });
    expect(refused.statusCode, refused.body).to.be.oneOf([400, 501]);
    expect((await call(gw.bob, 'POST', '/voice/api/tts', { input: 'hello' })).statusCode).to.equal(200);
    expect((await call(gw.eve, 'POST', '/voice/api/tts/provider', { provider: 'auto' })).json<Json>()).to.include({ tts_provider: 'espeak' });
  });

  it('POST /api/voices/select: the B.15 sentences; a profile chosen by one account changes only its own speech', async () => {
    expect(detail(await call(gw.bob, 'POST', '/voice/api/voices/select', { kind: 'weird' }), 400)).to.equal('Voice kind must be base, clone, or profile.');
    expect(detail(await call(gw.bob, 'POST', '/voice/api/voices/select', { kind: 'profile', role: 'robot' }), 400)).to.equal('Voice role must be assistant or user.');
    expect(detail(await call(gw.bob, 'POST', '/voice/api/voices/select', { kind: 'profile' }), 400)).to.equal('Missing profile id.');
    expect(detail(await call(gw.bob, 'POST', '/voice/api/voices/select', { kind: 'profile', profile: 'no-such-voice' }), 400)).to.equal('Profile is not supported by the active TTS provider: no-such-voice');
    expect(detail(await call(gw.bob, 'POST', '/voice/api/voices/select', { kind: 'clone', voice: 'no-such-clone' }), 400)).to.equal('Unknown cloned voice: no-such-clone');

    const voices = (await call(gw.bob, 'GET', '/voice/api/voices')).json<{ ok: boolean; profiles: Array<{ profile_id: string; active: boolean; provider: string }>; cloned_voices: unknown[]; current: Record<string, unknown> }>();
    expect(voices.ok).to.equal(true);
    expect(voices.profiles.length, 'espeak lists its voices').to.be.greaterThan(1);
    expect(voices.profiles.every((p) => !p.active)).to.equal(true);
    const before = await call(gw.eve, 'POST', '/voice/api/tts', { input: 'Good morning.' });
    expect(before.statusCode, before.body).to.equal(200);
    // A profile other than the default one: its audio differs.
    const other = voices.profiles.find((p) => p.profile_id !== 'en' && p.profile_id !== 'en-us' && /^en/.test(p.profile_id)) ?? voices.profiles[voices.profiles.length - 1]!;
    const chosen = (await call(gw.bob, 'POST', '/voice/api/voices/select', { kind: 'profile', profile: other.profile_id, preload: true })).json<Json>();
    expect(chosen.current).to.include({ profile: other.profile_id, voice: other.profile_id });
    expect(chosen.preload).to.include({ ok: true });
    expect(chosen.preload.bytes).to.be.greaterThan(44);

    const bobs = await call(gw.bob, 'POST', '/voice/api/tts', { input: 'Good morning.' });
    const eves = await call(gw.eve, 'POST', '/voice/api/tts', { input: 'Good morning.' });
    expect(bobs.statusCode).to.equal(200);
    expect(eves.rawPayload.equals(before.rawPayload), "eve's speech did not change").to.equal(true);
    expect(bobs.rawPayload.equals(eves.rawPayload), "bob's profile is his alone").to.equal(false);
    expect((await call(gw.eve, 'GET', '/voice/api/status')).json<{ current: Record<string, unknown> }>().current).to.include({ profile: null, voice: null });
    const bobVoices = (await call(gw.bob, 'GET', '/voice/api/voices')).json<{ profiles: Array<{ profile_id: string; active: boolean }> }>();
    expect(bobVoices.profiles.filter((p) => p.active).map((p) => p.profile_id)).to.deep.equal([other.profile_id]);

    // A role voice is kept apart from the current voice; a provider change clears both.
    const role = (await call(gw.bob, 'POST', '/voice/api/voices/select', { kind: 'profile', profile: other.profile_id, role: 'assistant' })).json<{ current: { role_voices: Record<string, unknown> } }>();
    expect(role.current.role_voices).to.deep.equal({ assistant: other.profile_id, user: null });
    const reset = (await call(gw.bob, 'POST', '/voice/api/tts/provider', { provider: 'espeak' })).json<{ current: Record<string, unknown> }>();
    expect(reset.current).to.deep.include({ voice: null, profile: null, role_voices: { assistant: null, user: null } });
  });

  it('POST /api/tts: the audio with its media type; the B.15 refusals', async () => {
    const res = await call(gw.bob, 'POST', '/voice/api/tts', { text: '# Hello **there**', response_format: 'wav', speed: 1.2 });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.headers['content-type']).to.equal('audio/wav');
    expect(res.headers['content-disposition']).to.equal('inline; filename="speech.wav"');
    const decoded = decodeWaveToFloat32Channels(res.rawPayload);
    expect(decoded.audioChannels[0]!.length / decoded.sampleRate).to.be.greaterThan(0.3);
    // Markdown is stripped before speech unless sanitize_syntax is false.
    const plain = (await call(gw.bob, 'POST', '/voice/api/tts', { text: 'Hello there', speed: 1.2 })).rawPayload;
    expect(res.rawPayload.equals(plain), 'the marked-up text is spoken as its words').to.equal(true);
    const raw = (await call(gw.bob, 'POST', '/voice/api/tts', { text: '# Hello **there**', speed: 1.2, sanitize_syntax: false })).rawPayload;
    expect(raw.equals(plain), 'with sanitize_syntax false the symbols are read too').to.equal(false);

    expect(detail(await call(gw.bob, 'POST', '/voice/api/tts', { input: '  ' }), 400)).to.equal('Missing input text.');
    expect(detail(await call(gw.bob, 'POST', '/voice/api/tts', { input: 'hi', format: 'midi' }), 400)).to.equal('Unsupported audio format: midi');
    expect(detail(await call(gw.bob, 'POST', '/voice/api/tts', { input: 'hi', speed: 3 }), 400)).to.match(/^Speed must be between 0\.5 and 2\.0/);
    expect(detail(await call(gw.bob, 'POST', '/voice/api/tts', { input: 'hi', language: 'not a language!' }), 400)).to.equal('Unsupported or unavailable language: not a language!');
    expect(detail(await call(gw.bob, 'POST', '/voice/api/tts', { input: 'hi', role: 'robot' }), 400)).to.equal('Voice role must be assistant or user.');
    expect(detail(await call(gw.bob, 'POST', '/voice/api/tts', { input: 'hi', voice: 'nobody' }), 400)).to.match(/^Unknown voice: nobody/);
    expect(detail(await call(gw.bob, 'POST', '/voice/api/tts', { input: 'x'.repeat(5000) }), 400)).to.include('limits.maxInputChars');
  });

  it('POST /api/stt/transcriptions (and /api/stt/transcribe): speech made by /api/tts read back in grammar mode; an empty file is refused', async function () {
    const empty = form([{ name: 'file', filename: 'a.wav', contentType: 'audio/wav', bytes: Buffer.alloc(0) }]);
    expect(detail(await gw.k.inject({ method: 'POST', url: '/voice/api/stt/transcriptions', token: gw.bob, payload: empty.payload, headers: empty.headers }), 400)).to.equal('Missing audio file.');
    skipWithoutPocketsphinx(this);
    const wav = (await call(gw.bob, 'POST', '/voice/api/tts', { input: 'turn the lights on' })).rawPayload;
    for (const path of ['/voice/api/stt/transcriptions', '/voice/api/stt/transcribe']) {
      const body = form([{ name: 'file', filename: 'say.wav', contentType: 'audio/wav', bytes: wav }, { name: 'language', value: 'en' }, { name: 'prompt', value: 'grammar: turn the lights on | turn the lights off | open the door' }]);
      const res = await gw.k.inject({ method: 'POST', url: path, token: gw.bob, payload: body.payload, headers: body.headers });
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json()).to.deep.equal({ ok: true, text: 'turn the lights on' });
    }
  });

  it('POST /api/qwen3-tts/codebook: invalid values answer 400 before anything is kept; valid ones are this account\'s', async () => {
    expect(detail(await call(gw.bob, 'POST', '/voice/api/qwen3-tts/codebook', { predictor: 'magic' }), 400)).to.equal('Invalid codebook predictor "magic": must be one of auto, reference.');
    expect(detail(await call(gw.bob, 'POST', '/voice/api/qwen3-tts/codebook', { sampler: 'greedy' }), 400)).to.equal('Invalid codebook sampler "greedy": must be one of multinomial, exponential.');
    expect((await call(gw.bob, 'GET', '/voice/api/status')).json<{ qwen3_tts: unknown }>().qwen3_tts).to.deep.equal({ predictor: 'auto', sampler: 'multinomial' });
    expect((await call(gw.bob, 'POST', '/voice/api/qwen3-tts/codebook', { predictor: 'reference', sampler: 'exponential' })).json()).to.deep.equal({ ok: true, predictor: 'reference', sampler: 'exponential' });
    expect((await call(gw.bob, 'GET', '/voice/api/status')).json<{ qwen3_tts: unknown }>().qwen3_tts).to.deep.equal({ predictor: 'reference', sampler: 'exponential' });
    expect((await call(gw.eve, 'GET', '/voice/api/status')).json<{ qwen3_tts: unknown }>().qwen3_tts).to.deep.equal({ predictor: 'auto', sampler: 'multinomial' });
  });

  it('GET /api/llm: a configured endpoint\'s models, bounded; unknown names, refusals, huge bodies and silence are sentences', async () => {
    const listed = (await call(gw.bob, 'GET', '/voice/api/llm')).json();
    expect(listed).to.deep.equal({ ok: true, provider: 'ok', base_url: `${llm.url}/ok/v1`, models: ['tiny-chat', 'qwen-0.5b'] });
    expect((await call(gw.bob, 'GET', '/voice/api/llm/models?provider=ok')).json()).to.deep.equal(listed);
    expect(detail(await call(gw.bob, 'GET', `/voice/api/llm?provider=${encodeURIComponent('http://169.254.169.254/')}`), 400)).to.match(/^Unknown LLM provider: http:\/\/169\.254\.169\.254\/\. Configured: ok, refuse, huge, silent\.$/);
    expect(detail(await call(gw.bob, 'GET', '/voice/api/llm?provider=refuse'), 502)).to.include('with HTTP 401');
    expect(detail(await call(gw.bob, 'GET', '/voice/api/llm?provider=huge'), 502)).to.include('larger than 65536 bytes');
    expect(detail(await call(gw.bob, 'GET', '/voice/api/llm?provider=silent'), 502)).to.equal('The LLM endpoint silent did not answer within 500 ms.');
  });
});

describe('voice web example: cloned voices through a compatible endpoint, per account', function () {
  this.timeout(300_000);
  let remote: VoiceRemote;
  const gw = voiceKernel({
    get voice() {
      return { voice_cloning_engine: 'compatible', voice_remote_base_url: remote.baseUrl };
    },
  });
  before(async () => {
    remote = await startVoiceRemote();
    await gw.boot();
  });
  after(async () => {
    await gw.stop();
    await remote?.close();
  });

  const clone = (token: string, fields: Array<{ name: string; value: string }>, file = { filename: 'me.wav', bytes: toneWav(1) }) => {
    const body = form([{ name: 'file', filename: file.filename, contentType: 'audio/wav', bytes: file.bytes }, ...fields]);
    return gw.k.inject({ method: 'POST', url: '/voice/api/voices/clone', token, payload: body.payload, headers: body.headers });
  };
  const post = (token: string, url: string, payload: unknown) => gw.k.inject({ method: 'POST', url, token, payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } });
  const sentence = (res: InjectResponse): string => {
    const d = res.json<{ detail: string | { message: string } }>().detail;
    return typeof d === 'string' ? d : d.message;
  };

  it('clones (validated by speaking), lists it for its account only, selects it by name and speaks with it', async () => {
    const made = await clone(gw.bob, [{ name: 'name', value: 'Bob voice' }, { name: 'reference_text', value: 'hello there' }]);
    expect(made.statusCode, made.body).to.equal(200);
    const body = made.json<{ ok: boolean; voice_id: string; name: string; engine: string; validation: { ok: boolean; bytes: number }; current: Record<string, unknown> }>();
    expect(body).to.include({ ok: true, name: 'Bob voice', engine: 'compatible' });
    expect(body.validation).to.include({ ok: true });
    expect(remote.count('/voice/clone', 'POST')).to.equal(1);

    const bobs = (await gw.get(gw.bob, '/voice/api/voices')).json<{ cloned_voices: Array<{ id: string; name: string; active: boolean }> }>().cloned_voices;
    expect(bobs.map((c) => [c.id, c.name, c.active])).to.deep.equal([[body.voice_id, 'Bob voice', false]]);
    expect((await gw.get(gw.eve, '/voice/api/voices')).json<{ cloned_voices: unknown[] }>().cloned_voices).to.deep.equal([]);
    expect(sentence(await post(gw.eve, '/voice/api/voices/select', { kind: 'clone', voice: body.voice_id }))).to.equal(`Unknown cloned voice: ${body.voice_id}`);

    const selected = (await post(gw.bob, '/voice/api/voices/select', { kind: 'cloned', voice: 'Bob voice', role: 'user' })).json<{ current: { role_voices: Record<string, unknown>; voice: unknown } }>();
    expect(selected.current.role_voices).to.deep.equal({ assistant: null, user: body.voice_id });
    expect(selected.current.voice).to.equal(null);
    const before = remote.count('/audio/speech', 'POST');
    const spoken = await post(gw.bob, '/voice/api/tts', { input: 'Speaking as the user.', role: 'user' });
    expect(spoken.statusCode, spoken.body).to.equal(200);
    expect(spoken.headers['content-type']).to.equal('audio/wav');
    expect(remote.count('/audio/speech', 'POST'), 'the clone speaks at its engine').to.equal(before + 1);
    // Without the role, bob's current voice (the base espeak voice) speaks, not the remote.
    expect((await post(gw.bob, '/voice/api/tts', { input: 'Speaking plainly.' })).statusCode).to.equal(200);
    expect(remote.count('/audio/speech', 'POST')).to.equal(before + 1);
  });

  it('a reference file of an unreadable kind is refused; a clone that fails validation is removed and says so', async () => {
    expect(sentence(await clone(gw.bob, [], { filename: 'notes.txt', bytes: Buffer.from('hello') }))).to.match(/^Unsupported reference audio 'notes\.txt'/);
    remote.faults = { paths: ['/audio/speech'], failStatus: 500 };
    try {
      const failed = await clone(gw.bob, [{ name: 'name', value: 'Broken voice' }]);
      expect(failed.statusCode, failed.body).to.equal(400);
      expect(sentence(failed)).to.match(/^Cloned voice was stored but failed validation and was removed\./);
    } finally {
      remote.faults = {};
    }
    const names = (await gw.get(gw.bob, '/voice/api/voices')).json<{ cloned_voices: Array<{ name: string }> }>().cloned_voices.map((c) => c.name);
    expect(names).to.deep.equal(['Bob voice']);
    // validate=false keeps a clone without speaking with it.
    const before = remote.count('/audio/speech', 'POST');
    const kept = await clone(gw.bob, [{ name: 'name', value: 'Unchecked' }, { name: 'validate', value: 'false' }]);
    expect(kept.statusCode, kept.body).to.equal(200);
    expect(kept.json<{ validation: unknown }>().validation).to.equal(null);
    expect(remote.count('/audio/speech', 'POST')).to.equal(before);
  });
});
