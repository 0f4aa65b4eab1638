/**
 * Capability support (reference B.8): `getCapabilitySupport` and `findCompatibleModels` over the
 * reference's data file (shipped verbatim in @keel/voice) and Keel's rows for its own engines
 * (`espeak`, `pocketsphinx`), with the lookup order model → `*` → provider defaults, the default
 * surface per kind, provider aliases, and validation of the data.
 */
import { expect } from 'chai';
import { CAPABILITY_FEATURES, CapabilityDataError, CapabilityRegistry, findCompatibleModels, getCapabilitySupport, VoiceCatalog } from '@keel/voice';

describe('voice catalog: capability support', () => {
  it('answers the reference’s notable entries, under Keel’s provider names and the reference’s aliases', () => {
    expect(getCapabilitySupport('tts', 'instructions', 'hosted', null, 'bytes')).to.deep.equal({ support: 'conditional', reason: 'Instruction support depends on the specific OpenAI TTS model.', metadata: {} });
    expect(getCapabilitySupport('tts', 'instructions', 'hosted', null, 'playback')!.support).to.equal('unsupported');
    expect(getCapabilitySupport('tts', 'instructions', 'openai', 'gpt-4o-mini-tts', 'bytes')!.support).to.equal('native');
    const design = getCapabilitySupport('tts', 'instructions', 'qwen3-tts', 'Qwen/Qwen3-TTS-12Hz-1.7B-VoiceDesign', 'bytes')!;
    expect(design.support).to.equal('native');
    expect(design.metadata).to.deep.equal({ required: true });
    expect(getCapabilitySupport('tts', 'profile', 'qwen3-tts', 'Qwen/Qwen3-TTS-12Hz-1.7B-VoiceDesign', 'bytes')!.support).to.equal('unsupported');
    expect(getCapabilitySupport('tts', 'speed', 'supertonic')!.support).to.equal('unsupported');
    expect(getCapabilitySupport('tts', 'quality_preset', 'supertonic')!.support).to.equal('native');
    expect(getCapabilitySupport('cloning', 'reference_text_autofallback', 'omnivoice')!.support).to.equal('emulated');
    expect(getCapabilitySupport('cloning', 'speed', 'omnivoice', null, 'speak_bytes')!.support).to.equal('native');
    expect(getCapabilitySupport('cloning', 'speed', 'omnivoice', null, 'create')!.support).to.equal('unsupported');
    expect(getCapabilitySupport('cloning', 'reference_text', 'openai-compatible')!.support).to.equal('conditional');
    expect(getCapabilitySupport('stt', 'language', 'whisper')!.support).to.equal('native'); // alias of faster-whisper
    expect(getCapabilitySupport('cloning', 'reference_audio', 'f5-tts')!.support).to.equal('native'); // alias of f5_tts
  });

  it('answers Keel’s own engines: espeak (speed yes, instructions no, no presets) and pocketsphinx', () => {
    for (const surface of ['bytes', 'playback']) {
      expect(getCapabilitySupport('tts', 'speed', 'espeak', null, surface)!.support, surface).to.equal('native');
      expect(getCapabilitySupport('tts', 'instructions', 'espeak', null, surface)!.support, surface).to.equal('unsupported');
      expect(getCapabilitySupport('tts', 'quality_preset', 'espeak', null, surface)!.support, surface).to.equal('unsupported');
      expect(getCapabilitySupport('tts', 'profile', 'espeak', null, surface)!.support, surface).to.equal('native');
    }
    expect(getCapabilitySupport('tts', 'speed', 'espeak-ng')!.support).to.equal('native');
    expect(getCapabilitySupport('stt', 'audio_bytes', 'pocketsphinx')!.support).to.equal('native');
    expect(getCapabilitySupport('stt', 'prompt', 'pocketsphinx')!.support).to.equal('emulated');
    expect(getCapabilitySupport('stt', 'word_timestamps', 'pocketsphinx')!.support).to.equal('unsupported');
    // Keel has no local cloning engine: no cloning rows for its engines.
    expect(getCapabilitySupport('cloning', 'reference_audio', 'espeak')).to.equal(null);
  });

  it('resolves "default" to the kind’s first surface and looks in model, then "*", then provider defaults', () => {
    expect(getCapabilitySupport('tts', 'speed', 'hosted')).to.deep.equal(getCapabilitySupport('tts', 'speed', 'hosted', null, 'bytes'));
    expect(getCapabilitySupport('stt', 'language', 'hosted', null, 'DEFAULT')).to.deep.equal(getCapabilitySupport('stt', 'language', 'hosted', null, 'transcribe'));
    const registry = new CapabilityRegistry([
      {
        kinds: {
          tts: {
            providers: {
              demo: {
                default_surfaces: { bytes: { speed: 'native', instructions: { support: 'unsupported', reason: 'default row' } } },
                models: { '*': { surfaces: { bytes: { instructions: { support: 'emulated', reason: 'star row' } } } }, special: { surfaces: { bytes: { instructions: 'native' } } } },
              },
            },
          },
        },
      },
    ]);
    expect(registry.getCapabilitySupport('tts', 'instructions', 'demo', 'special')!.support).to.equal('native');
    expect(registry.getCapabilitySupport('tts', 'instructions', 'demo', 'other')).to.deep.equal({ support: 'emulated', reason: 'star row', metadata: {} });
    expect(registry.getCapabilitySupport('tts', 'speed', 'demo', 'special')).to.deep.equal({ support: 'native', reason: null, metadata: {} });
    // A feature missing from the defaults is filled as unsupported on every default surface.
    expect(registry.getCapabilitySupport('tts', 'pace', 'demo', null, 'playback')).to.deep.equal({ support: 'unsupported', reason: null, metadata: {} });
    expect(registry.getCapabilitySupport('tts', 'speed', 'nobody')).to.equal(null);
    expect(registry.getCapabilitySupport('video', 'speed', 'demo')).to.equal(null);
    expect(registry.getCapabilitySupport('tts', 'speed', 'demo', null, 'nowhere')).to.equal(null);
  });

  it('finds compatible models: every qualifying model, else one provider-level row with model null', () => {
    const rows = findCompatibleModels('tts', 'instructions', 'bytes');
    const pairs = rows.map((r) => `${r.provider}:${r.model}`);
    expect(pairs).to.include.members(['hosted:gpt-4o-mini-tts', 'qwen3-tts:Qwen/Qwen3-TTS-12Hz-1.7B-VoiceDesign']);
    expect(pairs).to.include('compatible:null'); // conditional by default, no concrete models
    expect(pairs.some((p) => p.startsWith('espeak:'))).to.equal(false);
    for (const row of rows) {
      expect(row).to.include({ kind: 'tts', surface: 'bytes', feature: 'instructions' });
      expect(['native', 'emulated', 'conditional']).to.include(row.support.support);
    }
    const nativeOnly = findCompatibleModels('tts', 'instructions', 'bytes', ['native']);
    expect(nativeOnly.every((r) => r.support.support === 'native')).to.equal(true);
    expect(nativeOnly.map((r) => r.provider)).to.not.include('compatible');
    const speed = findCompatibleModels('tts', 'speed', 'default', ['native']);
    expect(speed.map((r) => `${r.provider}:${r.model}`)).to.include('espeak:null');
    expect(speed.map((r) => r.provider)).to.not.include('supertonic');
    expect(findCompatibleModels('stt', 'prompt', 'transcribe', ['emulated']).map((r) => r.provider)).to.deep.equal(['pocketsphinx']);
    expect(findCompatibleModels('nope', 'speed')).to.deep.equal([]);
  });

  it('builds the compatibility catalog: version, every feature on every default surface, "*" for providers without models, extra models appended', () => {
    const registry = new CapabilityRegistry();
    const catalog = registry.compatibilityCatalog({ tts: { espeak: ['espeak-ng'] } });
    expect(catalog.version).to.equal('compatibility_v1');
    expect(Object.keys(catalog.providers)).to.deep.equal(['tts', 'stt', 'cloning']);
    expect(Object.keys(catalog.providers.tts).slice(0, 3)).to.deep.equal(['hosted', 'compatible', 'espeak']);
    for (const kind of ['tts', 'stt', 'cloning'] as const) {
      for (const entry of Object.values(catalog.providers[kind])) {
        expect(entry.kind).to.equal(kind);
        for (const surface of Object.values(entry.default_surfaces)) expect(Object.keys(surface)).to.include.members([...CAPABILITY_FEATURES[kind]]);
        expect(Object.keys(entry.models).length, `${kind}/${entry.provider}`).to.be.above(0);
      }
    }
    expect(Object.keys(catalog.providers.tts.espeak!.models)).to.deep.equal(['espeak-ng']);
    expect(Object.keys(catalog.providers.stt.pocketsphinx!.models)).to.deep.equal(['*']);
    expect(catalog.providers.tts.hosted!.default_surfaces.bytes!.instructions).to.deep.equal({ support: 'conditional', reason: 'Instruction support depends on the specific OpenAI TTS model.', metadata: {} });
  });

  it('refuses data whose support value is not one of the four', () => {
    expect(() => new CapabilityRegistry([{ kinds: { tts: { providers: { bad: { default_surfaces: { bytes: { speed: 'sometimes' } } } } } } }])).to.throw(CapabilityDataError, /support must be one of native, emulated, conditional, unsupported/);
    expect(() => new CapabilityRegistry([{ kinds: { video: { providers: {} } } }])).to.throw(CapabilityDataError, /unknown kind/);
    expect(() => new CapabilityRegistry([{}])).to.throw(CapabilityDataError);
  });

  it('is reachable through a catalog instance with its own registry', () => {
    const catalog = new VoiceCatalog({ env: {} });
    expect(catalog.getCapabilitySupport('tts', 'speed', 'espeak')!.support).to.equal('native');
    expect(catalog.findCompatibleModels('stt', 'audio_bytes').length).to.be.above(0);
    expect(catalog.compatibilityCatalog().version).to.equal('compatibility_v1');
  });
});
