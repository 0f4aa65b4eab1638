/**
 * Review of issue 17: the integration plugin's residency calls (reference B.9 "Residency (plugin)":
 * `load_resident_model`, `list_resident_models`, `unload_resident_model`) on `voice.service`:
 * a local engine becomes resident and is released, a remote provider reports `configured` with
 * `not_supported`, a missing or unknown task is refused in the entry (never thrown).
 */
import { expect } from 'chai';
import { embedPlugin, type EmbeddedPlugin } from '@keel/kernel';
import { voicePlugin, type VoiceService } from '@keel/plugin-voice';
import { tempDir } from './helpers/paths.js';

describe('voice review: resident models through voice.service (reference B.9)', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  let embedded: EmbeddedPlugin<VoiceService>;
  before(async () => {
    tmp = tempDir();
    embedded = await embedPlugin(voicePlugin, { dataDir: tmp.dir, config: {} });
  });
  after(async () => {
    await embedded?.stop();
    tmp?.remove();
  });

  it('loads espeak (tts), lists it, unloads it', async () => {
    const loaded = await embedded.exports.loadResidentModel({ task: 'tts', provider: 'espeak' });
    expect(loaded).to.include({ task: 'tts', provider: 'espeak', state: 'resident', loaded: true, resident: true, local: true, unloadable: true, error: null });
    expect(loaded.details).to.include({ component: 'tts_engine' });
    const listed = await embedded.exports.listResidentModels();
    expect(listed.map((e) => [e.task, e.provider, e.resident])).to.deep.include(['tts', 'espeak', true]);
    const unloaded = await embedded.exports.unloadResidentModel({ task: 'tts', provider: 'espeak' });
    expect(unloaded).to.include({ task: 'tts', provider: 'espeak', state: 'unloaded', resident: false, unloaded: true, error: null });
    expect((await embedded.exports.listResidentModels()).filter((e) => e.task === 'tts')).to.have.length(0);
  });

  it('the configured provider is the default; a remote one is configured, not resident', async () => {
    const loaded = await embedded.exports.loadResidentModel({ task: 'text_to_speech' });
    expect(loaded).to.include({ task: 'tts', provider: 'espeak', state: 'resident' });
    const remote = await embedded.exports.loadResidentModel({ task: 'tts', provider: 'hosted' });
    expect(remote).to.include({ task: 'tts', provider: 'hosted', state: 'configured', resident: false, local: false, unloadable: false });
    expect(remote.error).to.deep.include({ code: 'not_supported' });
  });

  it('refuses a missing or unknown task in the entry', async () => {
    expect((await embedded.exports.loadResidentModel({ task: '' })).error).to.deep.include({ code: 'invalid_request' });
    expect((await embedded.exports.loadResidentModel({ task: 'text_to_image' })).error).to.deep.include({ code: 'not_implemented_yet' });
    expect((await embedded.exports.loadResidentModel({ task: 'tts', provider: 'nope' })).error).to.deep.include({ code: 'invalid_request' });
  });
});
