/**
 * Review of issue 17: the integration plugin's capability calls (reference B.8, B.13
 * `get_capability_support`, `find_compatible_models`, `compatibility_catalog`) on `voice.service`,
 * from the same data the manager checks requests against.
 */
import { expect } from 'chai';
import { embedPlugin, type EmbeddedPlugin } from '@keel/kernel';
import { voicePlugin, type VoiceService } from '@keel/plugin-voice';
import { tempDir } from './helpers/paths.js';

describe('voice review: capability support through voice.service (reference B.8)', function () {
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

  it('getCapabilitySupport: the data the manager uses (espeak speed native, instructions unsupported; hosted instructions conditional on bytes)', () => {
    const svc = embedded.exports;
    expect(svc.getCapabilitySupport('tts', 'speed', 'espeak')).to.include({ support: 'native' });
    expect(svc.getCapabilitySupport('tts', 'instructions', 'espeak')).to.include({ support: 'unsupported' });
    expect(svc.getCapabilitySupport('tts', 'instructions', 'hosted', null, 'bytes')).to.include({ support: 'conditional' });
    expect(svc.getCapabilitySupport('tts', 'instructions', 'hosted', null, 'playback')).to.include({ support: 'unsupported' });
    expect(svc.getCapabilitySupport('tts', 'speed', 'no-such-provider')).to.equal(null);
  });

  it('findCompatibleModels and compatibilityCatalog', () => {
    const svc = embedded.exports;
    const rows = svc.findCompatibleModels('tts', 'instructions', 'bytes');
    expect(rows.map((r) => r.provider)).to.include('hosted');
    expect(rows.map((r) => r.provider)).to.not.include('espeak');
    const catalog = svc.compatibilityCatalog();
    expect(catalog.version).to.equal('compatibility_v1');
    expect(catalog.providers.tts).to.have.property('espeak');
  });
});
