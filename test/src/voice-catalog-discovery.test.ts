/**
 * Discovery (seed §2B, reference B.7): `voiceCatalog()` and `availableProviders()` are computed from
 * what is configured — two remotes (hosted and compatible, each a fake OpenAI-shaped server) and
 * local engines given to the catalog — carry every field the seed lists, list unreachable and
 * unavailable providers with a reason, and never throw.
 */
import { expect } from 'chai';
import { createServer } from 'node:net';
import { VoiceCatalog, type VoiceCatalogPayload } from '@keel/voice';
import { startVoiceRemote, type VoiceRemote } from './helpers/voice-remote.js';
import { profile, standinStt, standinTts } from './helpers/voice-engines-standin.js';

/** A loopback port nobody listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const SEED_FIELDS = [
  'kind', 'provider_id', 'engine_id', 'active_profile', 'active_model', 'voices', 'tts_models', 'stt_models',
  'tts_models_by_provider', 'stt_models_by_provider', 'tts_model_variants', 'stt_engine_variants', 'tts_catalog_by_provider',
  'stt_catalog_by_provider', 'available_providers', 'catalog', 'controls', 'tts_capabilities', 'speech_request_contract',
  'compatibility_catalog', 'unavailable_providers', 'unavailable_reason', 'unreachable_tts_providers',
];

describe('voice catalog: discovery from the configured engines', function () {
  this.timeout(60_000);
  let hosted: VoiceRemote;
  let compatible: VoiceRemote;

  before(async () => {
    hosted = await startVoiceRemote({ apiKey: 'hosted-key', answers: { voices: { data: [{ voice_id: 'hosted-custom', name: 'Hosted Custom' }] }, models: { data: [{ id: 'gpt-4o-mini-tts' }, { id: 'tts-2-preview' }, { id: 'whisper-2' }, { id: 'gpt-5' }] } } });
    compatible = await startVoiceRemote();
  });
  after(async () => {
    await hosted?.close();
    await compatible?.close();
  });

  const espeak = () => standinTts('espeak', { profiles: [profile('espeak', 'en-us', 'English (US)'), profile('espeak', 'fr', 'French')], models: ['espeak-ng'], formats: ['wav', 'pcm'], defaultProfile: 'en-us' });
  const sphinx = () => standinStt('pocketsphinx', { models: ['en-us'], formats: ['wav'] });
  const env = { VOICE_DISCOVERY_TIMEOUT_S: '20' };
  const catalogFor = (extra: Partial<ConstructorParameters<typeof VoiceCatalog>[0]> = {}) =>
    new VoiceCatalog({
      settings: { hostedApiKey: 'hosted-key', hostedBaseUrl: hosted.baseUrl, remoteBaseUrl: compatible.baseUrl },
      ttsEngines: [espeak()],
      sttEngines: [sphinx()],
      active: () => ({ ttsProvider: 'espeak', sttProvider: 'pocketsphinx', ttsModel: null, profile: 'fr' }),
      env,
      ...extra,
    });

  it('carries every field the seed lists, with tts_catalog_by_provider[p] and stt_catalog_by_provider[p] complete', async () => {
    const payload = await catalogFor().voiceCatalog();
    for (const field of SEED_FIELDS) expect(payload, field).to.have.property(field);
    expect(payload.kind).to.equal('tts');
    expect(payload.provider_id).to.equal('espeak');
    expect(payload.engine_id).to.equal(payload.provider_id);
    expect(payload.speech_request_contract).to.equal('speech_request_v1');
    expect((payload.compatibility_catalog as { version: string }).version).to.equal('compatibility_v1');
    expect(Object.keys(payload.tts_catalog_by_provider)).to.deep.equal(['hosted', 'compatible', 'espeak']);
    for (const entry of Object.values(payload.tts_catalog_by_provider)) {
      for (const key of ['models', 'model_variants', 'voices', 'profiles', 'cloned_voices', 'voices_by_model', 'formats']) expect(entry, `${entry.provider}.${key}`).to.have.property(key);
    }
    expect(Object.keys(payload.stt_catalog_by_provider)).to.deep.equal(['hosted', 'compatible', 'pocketsphinx']);
    for (const entry of Object.values(payload.stt_catalog_by_provider)) for (const key of ['models', 'model_variants', 'formats']) expect(entry, `${entry.provider}.${key}`).to.have.property(key);
    expect(payload.unreachable_tts_providers).to.deep.equal([]);
    expect(payload.unavailable_reason).to.equal(null);
    expect(payload.source).to.equal('keel.voice_catalog');
    expect(Object.keys(payload.controls)).to.have.members(['speed', 'quality_preset', 'instructions', 'profile', 'voice_clone']);
  });

  it('reports what the local engines say: their profiles, models, formats and the active profile', async () => {
    const payload = await catalogFor().voiceCatalog();
    const entry = payload.tts_catalog_by_provider.espeak!;
    expect(entry.models).to.deep.equal(['espeak-ng']);
    expect(entry.formats).to.deep.equal(['wav', 'pcm']);
    expect(entry.profiles.map((p) => p.id)).to.deep.equal(['en-us', 'fr']);
    expect(entry.profiles[0]).to.include({ kind: 'profile', provider: 'espeak', engine_id: 'espeak', label: 'English (US)' });
    expect(entry.voices_by_model).to.deep.equal({ 'espeak-ng': ['en-us', 'fr'] });
    expect(entry.model_variants).to.deep.equal([{ id: 'espeak:espeak-ng', model: 'espeak-ng', provider: 'espeak', default: true }]);
    expect(payload.tts_models).to.deep.equal(['espeak-ng']);
    expect(payload.profiles.map((p) => p.id)).to.deep.equal(['en-us', 'fr']);
    expect(payload.active_profile?.id).to.equal('fr');
    expect(payload.stt_models).to.deep.equal(['en-us']);
    expect(payload.stt_catalog_by_provider.pocketsphinx!.formats).to.deep.equal(['json', 'text']);
    expect(payload.stt_catalog_by_provider.pocketsphinx!.input_formats).to.deep.equal(['wav']);
    // The capability rows of Keel's own engine: speed honoured, instructions not.
    expect(payload.tts_capabilities.speed!.support).to.equal('native');
    expect(payload.tts_capabilities.instructions!.support).to.equal('unsupported');
    expect(payload.controls.speed).to.deep.equal({ supported: true, min: 0.5, max: 2.0, default: 1.0 });
    expect(payload.controls.instructions).to.deep.equal({ supported: false });
    expect(payload.controls.voice_clone).to.deep.equal({ supported: true });

    const other = await catalogFor({ ttsEngines: [standinTts('espeak', { profiles: [profile('espeak', 'de')], models: ['espeak-ng-1.52'], formats: ['wav'] })] }).voiceCatalog('espeak');
    expect(other.tts_catalog_by_provider.espeak!.profiles.map((p) => p.id)).to.deep.equal(['de']);
    expect(other.tts_models).to.deep.equal(['espeak-ng-1.52']);
  });

  it('lists what the remotes answer: hosted built-ins plus discovered voices and models, compatible /audio/voices and /models', async () => {
    const payload = await catalogFor().voiceCatalog();
    const h = payload.tts_catalog_by_provider.hosted!;
    expect(h.models).to.include.members(['gpt-4o-mini-tts', 'tts-1', 'tts-1-hd', 'tts-2-preview']);
    expect(h.models).to.not.include('gpt-5');
    expect(h.profiles.map((p) => p.id)).to.include.members(['alloy', 'verse', 'hosted-custom']);
    expect(h.formats).to.deep.equal(['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm']);
    expect(payload.stt_catalog_by_provider.hosted!.models).to.include('whisper-2');
    const c = payload.tts_catalog_by_provider.compatible!;
    expect(c.models).to.deep.equal(['remote-tts-1']);
    expect(c.voices.map((v) => v.id)).to.deep.equal(['remote-nova', 'remote-onyx']);
    expect(c.voices[0]).to.include({ label: 'Remote Nova', kind: 'voice', provider: 'compatible' });
    expect(payload.stt_catalog_by_provider.compatible!.models).to.deep.equal(['remote-whisper']);
    expect(hosted.seen.find((r) => r.path === '/models')?.headers.authorization).to.equal('Bearer hosted-key');
  });

  it('filters to one provider, split or as provider:model, and treats the model "default" as none', async () => {
    const catalog = catalogFor();
    const split = await catalog.voiceCatalog('compatible', 'remote-tts-1');
    expect(split.provider_id).to.equal('compatible');
    expect(Object.keys(split.tts_catalog_by_provider)).to.deep.equal(['compatible']);
    expect(split.voices.map((v) => v.id)).to.deep.equal(['remote-nova', 'remote-onyx']);
    const combined = await catalog.voiceCatalog('compatible:remote-tts-1');
    expect(combined.provider_id).to.equal('compatible');
    expect(combined.tts_models).to.deep.equal(split.tts_models);
    const aliased = await catalog.voiceCatalog('openai-compatible:default');
    expect(aliased.provider_id).to.equal('compatible');
    // The combined form in the model alone (what `GET /v1/audio/voices?model=compatible:remote-tts-1` passes).
    const inModel = await catalog.voiceCatalog(null, 'compatible:remote-tts-1');
    expect(inModel.provider_id).to.equal('compatible');
    expect(Object.keys(inModel.tts_catalog_by_provider)).to.deep.equal(['compatible']);
    expect(inModel.tts_models).to.deep.equal(split.tts_models);
  });

  it('takes the light path for providers_only and for a local provider: nobody is contacted, unreachable_tts_providers is absent', async () => {
    const before = hosted.seen.length + compatible.seen.length;
    const catalog = catalogFor({ env: { ...env, VOICE_REMOTE_DISCOVERY_TTL_S: '300' } });
    const light = await catalog.voiceCatalog(null, null, true);
    expect(light.source).to.equal('keel.light_catalog');
    expect(light).to.not.have.property('unreachable_tts_providers');
    expect(light.active_profile).to.equal(null);
    expect(light.voices).to.deep.equal([]);
    expect(light.stt_models).to.deep.equal([]);
    expect(light.stt_catalog_by_provider).to.deep.equal({});
    expect(light.tts_capabilities).to.deep.equal({});
    expect(light.compatibility_catalog).to.deep.equal({});
    expect(light.catalog).to.deep.equal({});
    expect(light.tts_providers).to.deep.equal(['hosted', 'compatible', 'espeak']);
    const local = await catalog.voiceCatalog('espeak');
    expect(local.source).to.equal('keel.light_catalog');
    expect(local).to.not.have.property('unreachable_tts_providers');
    expect(local.profiles.map((p) => p.id)).to.deep.equal(['en-us', 'fr']);
    expect(hosted.seen.length + compatible.seen.length).to.equal(before);
  });

  it('lists an unreachable remote with its reason and still answers everything else', async () => {
    const port = await deadPort();
    const catalog = catalogFor({ settings: { hostedApiKey: 'hosted-key', hostedBaseUrl: hosted.baseUrl, remoteBaseUrl: `http://127.0.0.1:${port}/v1` } });
    const payload = await catalog.voiceCatalog();
    expect(payload.unreachable_tts_providers).to.deep.equal(['compatible']);
    const entry = payload.tts_catalog_by_provider.compatible!;
    expect(entry.unreachable).to.equal(true);
    expect(entry.unreachable_reason).to.match(/could not be reached/);
    expect(entry.models).to.deep.equal([]);
    expect(entry.voices).to.deep.equal([]);
    expect(payload.stt_catalog_by_provider.compatible!.unreachable).to.equal(true);
    expect(payload.tts_catalog_by_provider.hosted!.unreachable).to.equal(undefined);
    expect(payload.tts_catalog_by_provider.espeak!.profiles).to.have.length(2);
    const only = await catalog.voiceCatalog('compatible');
    expect(only.unavailable_reason).to.match(/could not be reached/);
    expect(only.voices).to.deep.equal([]);
  });

  it('lists a remote that fails (HTTP 500) or answers an oversized body as unreachable, with the remote’s own words', async () => {
    compatible.faults = { failStatus: 500 };
    try {
      const failed = await catalogFor().voiceCatalog('compatible');
      expect(failed.unreachable_tts_providers).to.deep.equal(['compatible']);
      expect(failed.unavailable_reason).to.match(/HTTP 500: remote failure injected on \/models/);
      compatible.faults = { oversizedBytes: 3 * 1024 * 1024 };
      const big = await catalogFor().voiceCatalog('compatible');
      expect(big.unreachable_tts_providers).to.deep.equal(['compatible']);
      expect(big.unavailable_reason).to.match(/more than the 1048576 bytes/);
    } finally {
      compatible.faults = {};
    }
  });

  it('keeps a remote that answers /models but has no voice listing (404) reachable, with its known voices', async () => {
    hosted.faults = { failStatus: 404, paths: ['/audio/voices'] };
    try {
      const payload = await catalogFor().voiceCatalog('hosted');
      expect(payload.unreachable_tts_providers).to.deep.equal([]);
      expect(payload.unavailable_reason).to.equal(null);
      expect(payload.tts_models).to.include('tts-2-preview');
      expect(payload.profiles.map((p) => p.id)).to.include('alloy').and.not.include('hosted-custom');
    } finally {
      hosted.faults = {};
    }
  });

  it('never throws for an unknown provider or an unavailable one: empty lists and a reason', async () => {
    const catalog = catalogFor({
      settings: {},
      ttsEngines: [standinTts('espeak', { availability: { available: false, code: 'runtime_missing', reason: 'espeak-ng could not be loaded.', install: 'npm install espeak-ng' } })],
      sttEngines: [standinStt('pocketsphinx', { availability: { available: false, code: 'runtime_missing', reason: 'pocketsphinx is not installed.', install: 'apt-get install pocketsphinx pocketsphinx-en-us' } })],
    });
    const unknown: VoiceCatalogPayload = await catalog.voiceCatalog('no-such-engine');
    expect(unknown.voices).to.deep.equal([]);
    expect(unknown.unavailable_reason).to.match(/^Unknown TTS provider: "no-such-engine"/);
    const weird = await catalog.voiceCatalog('../../etc/passwd' + 'x'.repeat(500));
    expect(weird.unavailable_reason!.length).to.be.below(300);

    const down = await catalog.voiceCatalog('espeak');
    expect(down.voices).to.deep.equal([]);
    expect(down.unavailable_reason).to.equal('espeak-ng could not be loaded.');
    expect(down.tts_catalog_by_provider.espeak!.unavailable!.code).to.equal('runtime_missing');

    const providers = await catalog.availableProviders();
    expect(providers.tts).to.deep.equal([]);
    expect(providers.unavailable.tts.espeak).to.deep.equal({
      code: 'runtime_missing',
      reason: 'espeak-ng could not be loaded.',
      runtime: { installed: false, missing_modules: [], extra: null, install_command: 'npm install espeak-ng', reason: 'espeak-ng could not be loaded.' },
    });
    expect(providers.unavailable.stt.pocketsphinx!.runtime!.install_command).to.equal('apt-get install pocketsphinx pocketsphinx-en-us');
    expect(providers.unavailable.tts.hosted!.code).to.equal('not_configured');
    expect(providers.unavailable.tts.compatible!.code).to.equal('not_configured');
    expect(providers.known_tts_providers).to.deep.equal(['hosted', 'compatible', 'espeak']);
  });

  it('available_providers: the seed’s keys, ordered lists, details, and local cloning unavailable with its reason', async () => {
    const providers = await catalogFor({ env: { ...env, VOICE_HOSTED_VOICE_CONSENT_ID: 'consent-1' } }).availableProviders();
    for (const key of ['tts', 'stt', 'cloning', 'providers', 'details', 'unavailable', 'known_tts_providers', 'known_stt_providers', 'known_cloning_providers', 'active_tts_provider', 'active_stt_provider', 'active_cloning_provider']) expect(providers, key).to.have.property(key);
    expect(providers.tts).to.deep.equal(['hosted', 'compatible', 'espeak']);
    expect(providers.stt).to.deep.equal(['hosted', 'compatible', 'pocketsphinx']);
    expect(providers.cloning).to.deep.equal(['hosted', 'compatible']);
    expect(providers.providers).to.deep.equal(['hosted', 'compatible', 'espeak', 'pocketsphinx']);
    expect(providers.details.tts.espeak).to.deep.equal({ id: 'espeak', provider: 'espeak', kind: 'tts', remote: false, local: true, installed: true });
    expect(providers.details.tts.hosted).to.deep.include({ remote: true, local: false, installed: null });
    expect(providers.active_tts_provider).to.equal('espeak');
    expect(providers.unavailable.cloning.local!.code).to.equal('runtime_missing');
    expect(providers.unavailable.cloning.local!.reason).to.match(/Keel ships no local voice-cloning engine/);

    const noConsent = await catalogFor().availableProviders();
    expect(noConsent.cloning).to.deep.equal(['compatible']);
    expect(noConsent.unavailable.cloning.hosted!.reason).to.match(/VOICE_HOSTED_VOICE_CONSENT_ID/);
  });

  it('lists providers by the reference’s rules: compatible from HOSTED_BASE_URL too, never for the official root; hosted only with a key', async () => {
    const fromEnv = await new VoiceCatalog({ env: { HOSTED_BASE_URL: compatible.baseUrl } }).availableProviders();
    expect(fromEnv.tts).to.deep.equal(['compatible']);
    const official = await new VoiceCatalog({ settings: { remoteBaseUrl: 'https://api.openai.com/v1' }, env: {} }).availableProviders();
    expect(official.tts).to.deep.equal([]);
    expect(official.unavailable.tts.compatible!.code).to.equal('not_configured');
    const remoteKey = await new VoiceCatalog({ settings: { remoteApiKey: 'k' }, env: {} }).availableProviders();
    expect(remoteKey.tts).to.deep.equal(['hosted']);
    const envKey = await new VoiceCatalog({ env: { HOSTED_API_KEY: 'k' } }).availableProviders();
    expect(envKey.tts).to.deep.equal(['hosted']);
    expect(envKey.stt).to.deep.equal(['hosted']);
  });

  it('lists a local engine that hangs or fails as unavailable, with the reason, instead of hanging or throwing', async () => {
    const hung = { ...standinTts('espeak'), availability: () => new Promise<never>(() => {}) };
    const slowList = { ...standinTts('slowtts'), profiles: () => new Promise<never>(() => {}) };
    const broken = { ...standinTts('brokentts'), models: async () => Promise.reject(new Error('voice table unreadable')) };
    const catalog = new VoiceCatalog({ ttsEngines: [hung, slowList, broken], env: {}, localTimeoutMs: 300, active: () => ({ ttsProvider: 'slowtts', sttProvider: null }) });
    const providers = await catalog.availableProviders();
    expect(providers.unavailable.tts.espeak!.reason).to.match(/availability check did not answer within 0\.3 s/);
    expect(providers.tts).to.deep.equal(['brokentts', 'slowtts']);
    const payload = await catalog.voiceCatalog();
    expect(payload.tts_catalog_by_provider.slowtts!.unavailable!.reason).to.match(/profile list did not answer within 0\.3 s/);
    expect(payload.tts_catalog_by_provider.brokentts!.unavailable!.reason).to.match(/voice table unreadable/);
    expect(payload.voices).to.deep.equal([]);
    expect(payload.unavailable_reason).to.match(/profile list did not answer/);
  });

  it('lists cloned voices from the store in voices, cloned_voices and their provider’s entry', async () => {
    const record = { voice_id: 'a'.repeat(32), name: 'My Voice', created_at: 1, reference_files: ['ref_0.wav'], reference_text: null, engine: 'compatible', meta: {} };
    const payload = await catalogFor({ clones: { list: async () => [record] } }).voiceCatalog();
    expect(payload.cloned_voices.map((v) => v.id)).to.deep.equal(['a'.repeat(32)]);
    expect(payload.cloned_voices[0]).to.include({ kind: 'clone', name: 'My Voice', provider: 'compatible' });
    expect(payload.cloned_voices[0]!.tags).to.deep.equal({ provider: 'compatible', source: 'keel_clone_store' });
    expect(payload.voices.map((v) => v.kind)).to.deep.equal(['profile', 'profile', 'clone']);
    expect(payload.tts_catalog_by_provider.compatible!.cloned_voices.map((v) => v.id)).to.deep.equal(['a'.repeat(32)]);
    expect(payload.tts_catalog_by_provider.espeak!.cloned_voices).to.deep.equal([]);
  });

  it('lists models by kind and refuses an unknown kind with the reference’s sentence', async () => {
    const catalog = catalogFor();
    expect(await catalog.listModels('tts', 'espeak')).to.deep.equal(['espeak-ng']);
    expect(await catalog.listModels('stt', 'compatible')).to.deep.equal(['remote-whisper']);
    expect(await catalog.listModels('cloning', 'hosted')).to.deep.equal(['gpt-4o-mini-tts', 'tts-1', 'tts-1-hd']);
    let error: unknown;
    await catalog.listModels('video').catch((err: unknown) => (error = err));
    expect(error).to.include({ status: 400, message: "kind must be 'tts', 'stt', or 'cloning'" });
  });
});
