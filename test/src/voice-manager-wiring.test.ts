/**
 * The manager wired to the package's own catalog, capability registry, cloned-voice store and cloner
 * (src/catalog, src/cloning) through its hooks, against the fake OpenAI-shaped audio server: clone a
 * voice at the remote, speak with it, see it in the catalog, rename and delete it.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClonedVoiceStore, VoiceCatalog, VoiceCloner, VoiceError, VoiceManager } from '@keel/voice';
import { FakeAudioServer } from './helpers/voice-fake-audio-server.js';

describe('voice manager: wired to the catalog and the cloned-voice store', () => {
  let server: FakeAudioServer;
  let dir: string;
  let manager: VoiceManager;

  beforeEach(async () => {
    server = new FakeAudioServer({ apiKey: 'k-remote' });
    const baseUrl = await server.start();
    dir = await mkdtemp(join(tmpdir(), 'voice-wiring-'));
    manager = new VoiceManager({ ttsEngine: 'compatible', sttEngine: 'compatible', remoteBaseUrl: baseUrl, remoteApiKey: 'k-remote', cloningEngine: 'compatible', env: {} });
    const settings = manager.engineSettings();
    const store = new ClonedVoiceStore(join(dir, 'cloned_voices'));
    const cloner = new VoiceCloner({ store, settings, env: {}, defaultEngine: 'compatible' });
    const catalog = new VoiceCatalog({ settings, env: {}, ttsEngines: [manager.ttsEngine!], active: () => manager.activeSelection(), clones: store });
    manager.useHooks({ clonedVoices: store, cloner, catalog, capabilities: catalog.capabilities });
  });

  afterEach(async () => {
    await manager.cleanup();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('clones at the remote, speaks the clone with its remote id, lists, renames and deletes it', async () => {
    const reference = (await manager.speakToBytes('This is my reference recording.')).bytes;
    const voiceId = await manager.cloneVoiceFromWavBytes(reference, { name: 'Mine', referenceText: 'This is my reference recording.' });
    expect(voiceId).to.match(/^[0-9a-f]{32}$/);
    const [clone] = server.requestsTo('/voice/clone');
    expect(clone!.fields).to.include({ name: 'Mine', reference_text: 'This is my reference recording.' });
    expect(clone!.file!.bytes.equals(reference)).to.equal(true);

    const record = await manager.getClonedVoice(voiceId);
    expect(record.meta).to.include({ remote_voice_id: 'remote-clone-1', remote_provider: 'compatible' });

    await manager.speakToBytes('Now in my own voice.', { voice: voiceId });
    const speech = server.requestsTo('/audio/speech').pop()!;
    expect(speech.json).to.include({ input: 'Now in my own voice.', voice: 'remote-clone-1' });
    expect(manager.popLastTtsMetrics()).to.include({ engine: 'clone', voice_id: voiceId });

    const catalog = (await manager.voiceCatalog()) as { cloned_voices: { voice_id: string }[] };
    expect(catalog.cloned_voices.map((v) => v.voice_id)).to.include(voiceId);

    expect(await manager.renameClonedVoice(voiceId, 'Renamed')).to.equal(true);
    expect((await manager.listClonedVoices()).map((v) => v.name)).to.deep.equal(['Renamed']);
    expect(await manager.deleteClonedVoice(voiceId)).to.equal(true);
    const gone = await manager.speakToBytes('Again.', { voice: voiceId }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(gone).to.be.instanceOf(VoiceError);
    expect((gone as VoiceError).message).to.equal(`Unknown cloned voice: ${voiceId}`);
  });

  it("a per-call store keeps one account's clones from another", async () => {
    const otherStore = new ClonedVoiceStore(join(dir, 'other_account'));
    const voiceId = await manager.cloneVoiceFromWavBytes((await manager.speakToBytes('Reference.')).bytes, { name: 'A' });
    const refused = await manager.speakToBytes('Hi.', { voice: voiceId, clonedVoices: otherStore }).then(
      () => undefined,
      (error: unknown) => error as VoiceError,
    );
    expect(refused?.status).to.equal(404);
    expect(refused?.message).to.equal(`Unknown cloned voice: ${voiceId}`);
    const bare = new VoiceManager({ ttsEngine: 'compatible', remoteBaseUrl: manager.engineSettings().remoteBaseUrl, remoteApiKey: 'k-remote', env: {} });
    try {
      const ownStore = new ClonedVoiceStore(join(dir, 'cloned_voices'));
      await bare.speakToBytes('Hi.', { voice: voiceId, clonedVoices: ownStore });
      expect(server.requestsTo('/audio/speech').pop()!.json!.voice).to.equal('remote-clone-1');
    } finally {
      await bare.cleanup();
    }
  });

  it('the capability registry decides the controls: compatible instructions are forwarded', async () => {
    await manager.speakToBytes('Styled.', { instructions: 'Cheerful.' });
    expect(server.requestsTo('/audio/speech').pop()!.json!.instructions).to.equal('Cheerful.');
  });

  it('available providers come from the catalog and name the active engine', async () => {
    const providers = (await manager.availableProviders()) as { active_tts_provider: string; tts: string[] };
    expect(providers.active_tts_provider).to.equal('compatible');
    expect(providers.tts).to.include('compatible');
  });
});
