/**
 * The manager's hook points (catalog, cloner, cloned-voice store, capabilities) and its smaller
 * normalisers: markdown stripping, audio formats, quality presets, engine resolution.
 */
import { expect } from 'chai';
import {
  VoiceError,
  VoiceManager,
  normaliseAudioFormat,
  normaliseQualityPreset,
  resolveEngineId,
  sanitizeSyntax,
  type CloneRecordView,
  type VoiceManagerHooks,
} from '@keel/voice';
import { tinyFactory } from './helpers/voice-tiny-engine.js';

async function voiceError(promise: Promise<unknown> | (() => unknown)): Promise<VoiceError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    expect(error).to.be.instanceOf(VoiceError);
    return error as VoiceError;
  }
  throw new Error('expected a VoiceError');
}

describe('voice manager: hooks and normalisers', () => {
  it('delegates cloning calls to the cloner and store hooks, with the manager defaults', async () => {
    const calls: unknown[][] = [];
    const record: CloneRecordView = { voice_id: 'a'.repeat(32), name: 'Mine', engine: 'compatible', reference_text: null, meta: {} };
    const hooks: VoiceManagerHooks = {
      cloner: {
        cloneVoice: async (...args) => (calls.push(['cloneVoice', ...args]), 'id-from-path'),
        cloneVoiceFromBytes: async (...args) => (calls.push(['cloneVoiceFromBytes', ...args]), 'id-from-bytes'),
      },
      clonedVoices: {
        find: async (id) => (id === record.voice_id ? record : null),
        list: async () => [record],
        rename: async (...args) => void calls.push(['rename', ...args]),
        setReferenceText: async (...args) => void calls.push(['setReferenceText', ...args]),
        delete: async (...args) => void calls.push(['delete', ...args]),
        exportVoice: async (_id, path) => `${path}.zip`,
        importVoice: async () => 'b'.repeat(32),
      },
    };
    const manager = new VoiceManager({ ttsEngine: 'none', cloningEngine: 'compatible', env: {} }, {}, hooks);
    expect(await manager.cloneVoice('/tmp/ref.wav', { name: 'Me' })).to.equal('id-from-path');
    expect(await manager.cloneVoiceFromWavBytes(Buffer.from('RIFF'), { referenceText: 'Hi.' })).to.equal('id-from-bytes');
    expect(calls[0]).to.deep.equal(['cloneVoice', '/tmp/ref.wav', { name: 'Me', engine: 'compatible', model: null }]);
    expect(calls[1]![0]).to.equal('cloneVoiceFromBytes');
    expect(calls[1]![2]).to.deep.equal({ referenceText: 'Hi.', engine: 'compatible', model: null, filename: 'ref_0.wav', contentType: 'audio/wav' });
    expect(await manager.listClonedVoices()).to.deep.equal([record]);
    expect(await manager.getClonedVoice(record.voice_id)).to.equal(record);
    const unknown = await voiceError(manager.getClonedVoice('nope'));
    expect([unknown.status, unknown.message]).to.deep.equal([404, 'Unknown voice_id: nope']);
    expect(await manager.renameClonedVoice(record.voice_id, 'New')).to.equal(true);
    expect(await manager.setClonedVoiceReferenceText(record.voice_id, 'Text.')).to.equal(true);
    expect(await manager.deleteClonedVoice(record.voice_id)).to.equal(true);
    expect(calls.slice(2)).to.deep.equal([
      ['rename', record.voice_id, 'New'],
      ['setReferenceText', record.voice_id, 'Text.'],
      ['delete', record.voice_id],
    ]);
    expect(await manager.exportVoice(record.voice_id, '/tmp/v')).to.equal('/tmp/v.zip');
    expect(await manager.importVoice('/tmp/v.zip')).to.equal('b'.repeat(32));
    expect((await voiceError(manager.cloneVoiceFromWavBytes(Buffer.alloc(0)))).message).to.equal('Missing audio file.');
  });

  it('a local clone the manager cannot speak is a 501 naming its engine', async () => {
    const record: CloneRecordView = { voice_id: 'c'.repeat(32), name: 'Local', engine: 'omnivoice', reference_text: null, meta: {} };
    const manager = new VoiceManager({ ttsEngine: 'tiny', env: {} }, { tts: [tinyFactory()] }, {
      clonedVoices: { find: async () => record, list: async () => [], rename: async () => 0, setReferenceText: async () => 0, delete: async () => 0, exportVoice: async () => '', importVoice: async () => '' },
    });
    const error = await voiceError(manager.speakToBytes('Hi.', { voice: record.voice_id }));
    expect(error.status).to.equal(501);
    expect(error.message).to.equal(`Cloned voice '${record.voice_id}' needs the local cloning engine 'omnivoice', which is not available in this environment.`);
  });

  it('a clone engine supplied by a hook speaks the clone, in 120-character segments', async () => {
    const cloneEngine = tinyFactory({ id: 'local-clone' }).create({ language: 'en', remoteTimeoutS: 60, allowDownloads: false });
    const record: CloneRecordView = { voice_id: 'd'.repeat(32), name: 'Local', engine: 'local-clone', reference_text: 'Hi.', meta: {} };
    const manager = new VoiceManager({ ttsEngine: 'none', env: {} }, {}, {
      clonedVoices: { find: async () => record, list: async () => [], rename: async () => 0, setReferenceText: async () => 0, delete: async () => 0, exportVoice: async () => '', importVoice: async () => '' },
      cloneEngineFor: (r) => (r.engine === 'local-clone' ? cloneEngine : undefined),
    });
    const text = `Start. ${Array.from({ length: 10 }, (_, i) => `Sentence ${i} is a fairly ordinary one.`).join(' ')}`;
    const texts: string[] = [];
    for await (const chunk of await manager.speakToAudioChunks(text, { voice: record.voice_id })) texts.push(chunk.text);
    for (const t of texts) expect(t.length).to.be.at.most(120);
    expect(manager.popLastTtsMetrics()).to.include({ engine: 'clone', segment_max_chars: 120, voice_id: record.voice_id, clone_engine: 'local-clone' });
  });

  it('catalog calls go to the catalog hook; activeSelection is what it reads; 501 without one', async () => {
    const manager = new VoiceManager({ ttsEngine: 'tiny', sttEngine: 'none', ttsModel: 'tiny-1', cloningEngine: 'compatible', env: {} }, { tts: [tinyFactory()] });
    expect((await voiceError(manager.availableProviders())).code).to.equal('catalog_unavailable');
    const seen: unknown[] = [];
    manager.useHooks({
      catalog: {
        availableProviders: async () => ({ tts: [manager.activeSelection().ttsProvider] }),
        voiceCatalog: async (...args) => (seen.push(args), { kind: 'tts' }),
      },
    });
    expect(await manager.availableProviders()).to.deep.equal({ tts: ['tiny'] });
    expect(await manager.voiceCatalog({ provider: 'hosted', providersOnly: true })).to.deep.equal({ kind: 'tts' });
    expect(seen).to.deep.equal([['hosted', null, true]]);
    expect(manager.activeSelection()).to.deep.equal({ ttsProvider: 'tiny', sttProvider: null, cloningProvider: 'compatible', ttsModel: 'tiny-1', sttModel: null, profile: 'amy' });
  });

  it('sanitizeSyntax strips markdown an engine would read aloud', () => {
    expect(sanitizeSyntax('# Title\n\nSome **bold** and *italic* and `code`.')).to.equal('Title\n\nSome bold and italic and code.');
    expect(sanitizeSyntax('- one\n- two\n1. three\n> quoted')).to.equal('one\ntwo\nthree\nquoted');
    expect(sanitizeSyntax('See [the docs](https://x.y/z) and ![a cat](cat.png).')).to.equal('See the docs and a cat.');
    expect(sanitizeSyntax('```js\nlet x = 1;\n```')).to.equal('let x = 1;\n');
    expect(sanitizeSyntax('2 * 3 * 4 = 24, snake_case_name stays')).to.equal('2 * 3 * 4 = 24, snake_case_name stays');
  });

  it('normalisers answer the spec sentences', () => {
    expect(normaliseAudioFormat('WAVE')).to.equal('wav');
    expect(() => normaliseAudioFormat('aiff')).to.throw(VoiceError, 'Unsupported audio format: aiff');
    const hostile = `mp3\r\nX-Injected: yes${'z'.repeat(500)}`;
    const echoed = (() => {
      try {
        normaliseAudioFormat(hostile);
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    expect(echoed).to.not.match(/[\r\n]/);
    expect(echoed.length).to.be.at.most('Unsupported audio format: '.length + 64);
    expect(normaliseQualityPreset(' Balanced ')).to.equal('standard');
    expect(() => normaliseQualityPreset('ultra')).to.throw(VoiceError, 'preset must be one of: low|standard|high');
    expect(resolveEngineId('tts', 'AUTO', [])).to.equal('hosted');
    expect(resolveEngineId('stt', 'auto', [])).to.equal('hosted');
    expect(resolveEngineId('tts', 'Espeak', ['espeak'])).to.equal('espeak');
    expect(() => resolveEngineId('tts', 'x', ['espeak'])).to.throw(VoiceError, 'Unknown tts_engine: x. Supported: auto, compatible, espeak, hosted, none');
  });
});
