/**
 * The cloned-voice store and cloning (reference B.11, B.12, seed §5): voices are created through a
 * compatible endpoint's `POST /voice/clone` (a fake OpenAI-shaped server) or the hosted provider's
 * `POST /audio/voices` with the consent id, kept one folder per voice with index.json, renamed,
 * given a reference text, deleted and exported/imported in the reference's format; unknown ids are
 * the reference's 404; local cloning is reported unavailable with its reason.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { ClonedVoiceStore, VoiceCatalog, VoiceCloner, VoiceError } from '@keel/voice';
import { startVoiceRemote, toneWav, type VoiceRemote } from './helpers/voice-remote.js';

async function rejection(promise: Promise<unknown>): Promise<VoiceError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(VoiceError);
    return err as VoiceError;
  }
  throw new Error('expected a VoiceError');
}

describe('voice cloning: the cloned-voice store', function () {
  this.timeout(60_000);
  let remote: VoiceRemote;
  let dir: string;
  let store: ClonedVoiceStore;
  let cloner: VoiceCloner;
  const wav = toneWav(0.2);

  before(async () => {
    remote = await startVoiceRemote({ apiKey: 'remote-key' });
  });
  after(async () => {
    await remote?.close();
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keel-clones-'));
    store = new ClonedVoiceStore(join(dir, 'cloned_voices'));
    cloner = new VoiceCloner({ store, settings: { remoteBaseUrl: remote.baseUrl, remoteApiKey: 'remote-key' }, env: {} });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('creates a voice through the compatible endpoint’s /voice/clone and keeps it with the remote id (reference layout and record)', async () => {
    const before = remote.count('/voice/clone');
    const id = await cloner.cloneVoiceFromBytes(wav, { name: 'Narrator', referenceText: 'Hello there.' });
    expect(id).to.match(/^[0-9a-f]{32}$/);
    expect(remote.count('/voice/clone')).to.equal(before + 1);
    const sent = remote.seen.filter((r) => r.path === '/voice/clone').at(-1)!;
    expect(sent.body).to.include({ name: 'Narrator', reference_text: 'Hello there.', file_size: wav.length });
    expect(sent.headers.authorization).to.equal('Bearer remote-key');

    const record = await store.get(id);
    expect(record).to.include({ voice_id: id, name: 'Narrator', reference_text: 'Hello there.', engine: 'compatible' });
    expect(record.reference_files).to.deep.equal(['ref_0.wav']);
    expect(record.created_at).to.be.a('number');
    expect(record.meta).to.include({ source: 'bytes', reference_text_source: 'manual', remote_provider: 'compatible', remote_base_url: remote.baseUrl, remote_clone_path: '/voice/clone' });
    expect(record.meta.remote_voice_id).to.match(/^remote-clone-/);
    // The reference's layout: <store>/<id>/ref_0.wav and index.json (sorted keys, indent 2).
    expect(await readFile(join(store.dir, id, 'ref_0.wav'))).to.deep.equal(wav);
    const index = JSON.parse(await readFile(join(store.dir, 'index.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(Object.keys(index)).to.deep.equal([id]);
    expect(Object.keys(index[id]!)).to.deep.equal(['created_at', 'engine', 'meta', 'name', 'reference_files', 'reference_text', 'voice_id']);
    expect(await readFile(join(store.dir, 'index.json'), 'utf8')).to.contain('\n  "');
  });

  it('clones from a file path (suffix kept, meta.source the path) and names an unnamed voice voice_<first 8 of id>', async () => {
    const file = join(dir, 'sample.flac');
    await writeFile(file, wav);
    const id = await cloner.cloneVoice(file);
    const record = await store.get(id);
    expect(record.name).to.equal(`voice_${id.slice(0, 8)}`);
    expect(record.reference_files).to.deep.equal(['ref_0.flac']);
    expect(record.meta.source).to.equal(file);
    expect(record.reference_text).to.equal(null);
  });

  it('applies the reference’s clone rules: the file must exist, its suffix must be audio, remote providers take exactly one file', async () => {
    expect((await rejection(cloner.cloneVoice(join(dir, 'missing.wav')))).message).to.match(/^Reference audio not found/);
    const text = join(dir, 'notes.txt');
    await writeFile(text, 'hello');
    const bad = await rejection(cloner.cloneVoice(text));
    expect(bad.status).to.equal(400);
    expect(bad.message).to.equal(`Unsupported reference audio format: .txt. Provide WAV/FLAC/OGG (got: ${text})`);
    const folder = join(dir, 'refs');
    await mkdir(folder);
    await writeFile(join(folder, 'a.wav'), wav);
    await writeFile(join(folder, 'b.ogg'), wav);
    expect((await rejection(cloner.cloneVoice(folder))).message).to.match(/exactly one reference file \(got 2/);
    await rm(join(folder, 'b.ogg'));
    expect(await cloner.cloneVoice(folder)).to.match(/^[0-9a-f]{32}$/);
    expect((await rejection(cloner.cloneVoiceFromBytes(wav, { filename: 'x.exe' }))).message).to.match(/^Unsupported reference audio format: \.exe/);
    expect((await rejection(cloner.cloneVoiceFromBytes(new Uint8Array(0)))).status).to.equal(400);
    const small = new VoiceCloner({ store: new ClonedVoiceStore(join(dir, 'small'), { maxReferenceBytes: 100 }), settings: { remoteBaseUrl: remote.baseUrl, remoteApiKey: 'remote-key' }, env: {} });
    const big = await rejection(small.cloneVoiceFromBytes(wav));
    expect(big.status).to.equal(413);
    expect(big.message).to.match(/maxReferenceBytes/);
  });

  it('requires a voice id in the remote’s answer, and carries the remote’s error message', async () => {
    remote.answers = { clone: { ok: true } };
    try {
      const missing = await rejection(cloner.cloneVoiceFromBytes(wav));
      expect(missing).to.include({ status: 502, message: 'Remote clone response did not include a voice id' });
      for (const [answer, expected] of [[{ id: 'by-id' }, 'by-id'], [{ data: { voice: 'nested' } }, 'nested'], [{ voice: { voice_id: 'inner' } }, 'inner']] as const) {
        remote.answers = { clone: answer };
        const id = await cloner.cloneVoiceFromBytes(wav);
        expect((await store.get(id)).meta.remote_voice_id).to.equal(expected);
      }
      remote.answers = {};
      remote.faults = { failStatus: 422, paths: ['/voice/clone'] };
      const failed = await rejection(cloner.cloneVoiceFromBytes(wav));
      expect(failed.status).to.equal(502);
      expect(failed.message).to.match(/HTTP 422: remote failure injected on \/voice\/clone/);
    } finally {
      remote.answers = {};
      remote.faults = {};
    }
    // Nothing was stored for the failed attempts.
    expect((await store.list()).map((v) => v.meta.remote_voice_id)).to.deep.equal(['inner', 'nested', 'by-id']);
  });

  it('renames, sets the reference text, lists newest first and deletes (folder, then index entry)', async () => {
    const first = await cloner.cloneVoiceFromBytes(wav, { name: 'First' });
    const second = await cloner.cloneVoiceFromBytes(wav, { name: 'Second' });
    expect((await store.list()).map((v) => v.voice_id)).to.deep.equal([second, first]);
    expect(await store.rename(first, 'Renamed')).to.equal(true);
    expect((await store.get(first)).name).to.equal('Renamed');
    expect(await store.setReferenceText(first, 'The quick brown fox.')).to.equal(true);
    expect(await store.get(first)).to.deep.include({ reference_text: 'The quick brown fox.' });
    expect((await store.get(first)).meta.reference_text_source).to.equal('manual');
    expect((await rejection(store.rename(first, ''))).status).to.equal(400);
    expect((await rejection(store.rename(first, 'x'.repeat(201)))).status).to.equal(400);
    expect((await rejection(store.rename(first, 'bad\u0000name'))).status).to.equal(400);
    expect(await store.delete(first)).to.equal(true);
    expect(existsSync(join(store.dir, first))).to.equal(false);
    expect((await store.list()).map((v) => v.voice_id)).to.deep.equal([second]);
    expect(await store.find(first)).to.equal(null);
  });

  it('answers the reference’s 404 for an unknown voice, and never treats an id as a path', async () => {
    const keep = await cloner.cloneVoiceFromBytes(wav, { name: 'Keep' });
    const unknown = 'f'.repeat(32);
    for (const call of [() => store.get(unknown), () => store.rename(unknown, 'x'), () => store.setReferenceText(unknown, 'x'), () => store.delete(unknown), () => store.exportArchive(unknown)]) {
      const err = await rejection(call());
      expect(err).to.include({ status: 404, code: 'unknown_voice', message: `Unknown voice_id: ${unknown}` });
    }
    for (const hostile of ['..', '../cloned_voices', `../${keep}`, `${keep}/..`, '/etc', 'index.json', `${keep}/ref_0.wav`, `${keep.toUpperCase()}`]) {
      const err = await rejection(store.delete(hostile));
      expect(err.status, hostile).to.equal(404);
      expect(err.message).to.equal(`Unknown voice_id: ${hostile}`);
    }
    expect((await rejection(store.get('x'.repeat(5000)))).message.length).to.be.below(100);
    expect(existsSync(join(store.dir, keep, 'ref_0.wav'))).to.equal(true);
    expect((await store.list()).map((v) => v.voice_id)).to.deep.equal([keep]);
  });

  it('exports a ZIP of voice.json and refs/<file> (".zip" forced) and imports it as a new voice', async () => {
    const id = await cloner.cloneVoiceFromBytes(wav, { name: 'Exported', referenceText: 'Words.' });
    const path = await store.exportVoice(id, join(dir, 'narrator'));
    expect(path).to.equal(join(dir, 'narrator.zip'));
    const entries = unzipSync(new Uint8Array(await readFile(path)));
    expect(Object.keys(entries).sort()).to.deep.equal(['refs/ref_0.wav', 'voice.json']);
    expect(Buffer.from(entries['refs/ref_0.wav']!)).to.deep.equal(wav);
    const exported = JSON.parse(Buffer.from(entries['voice.json']!).toString('utf8')) as Record<string, unknown>;
    expect(exported).to.include({ voice_id: id, name: 'Exported', reference_text: 'Words.', engine: 'compatible' });

    const other = new ClonedVoiceStore(join(dir, 'other'));
    const imported = await other.importVoice(path);
    expect(imported).to.match(/^[0-9a-f]{32}$/);
    expect(imported).to.not.equal(id);
    const record = await other.get(imported);
    expect(record).to.include({ voice_id: imported, name: 'Exported', reference_text: 'Words.', engine: 'compatible' });
    expect(record.reference_files).to.deep.equal(['ref_0.wav']);
    expect(record.meta.imported_from).to.equal(id);
    expect(record.meta.remote_voice_id).to.equal((await store.get(id)).meta.remote_voice_id);
    expect(await readFile(join(other.dir, imported, 'ref_0.wav'))).to.deep.equal(wav);
    // Importing into the same store makes a second voice; the first is untouched.
    const again = await store.importVoice(path);
    expect(again).to.not.equal(id);
    expect((await store.list()).length).to.equal(2);
    expect((await store.get(id)).name).to.equal('Exported');
  });

  it('counts an unreadable index as empty and drops malformed entries', async () => {
    await mkdir(store.dir, { recursive: true });
    await writeFile(join(store.dir, 'index.json'), '{not json');
    expect(await store.list()).to.deep.equal([]);
    await writeFile(join(store.dir, 'index.json'), JSON.stringify({ '../evil': { name: 'x', engine: 'compatible' }, ['a'.repeat(32)]: { name: 'ok', engine: 'compatible', reference_files: ['ref_0.wav', '../../etc/passwd'], created_at: 5 } }));
    const list = await store.list();
    expect(list.map((v) => v.voice_id)).to.deep.equal(['a'.repeat(32)]);
    expect(list[0]!.reference_files).to.deep.equal(['ref_0.wav']);
  });

  it('requires the consent id for hosted voice creation, with an actionable error before any upload, and sends it when set', async () => {
    const hostedSettings = { hostedApiKey: 'remote-key', hostedBaseUrl: remote.baseUrl };
    const before = remote.count('/audio/voices', 'POST');
    const without = new VoiceCloner({ store, settings: hostedSettings, env: {} });
    const err = await rejection(without.cloneVoiceFromBytes(wav, { engine: 'hosted' }));
    expect(err).to.include({ status: 400, code: 'consent_required' });
    expect(err.message).to.match(/requires consent\. Set VOICE_HOSTED_VOICE_CONSENT_ID/);
    expect(remote.count('/audio/voices', 'POST')).to.equal(before);

    const withConsent = new VoiceCloner({ store, settings: hostedSettings, env: { VOICE_HOSTED_VOICE_CONSENT_ID: 'cons_123' } });
    const id = await withConsent.cloneVoiceFromBytes(wav, { engine: 'openai', name: 'Hosted One' });
    const sent = remote.seen.filter((r) => r.path === '/audio/voices' && r.method === 'POST').at(-1)!;
    expect(sent.body).to.include({ consent: 'cons_123', name: 'Hosted One', audio_sample_size: wav.length });
    const record = await store.get(id);
    expect(record.engine).to.equal('hosted');
    expect(record.meta.remote_voice_id).to.match(/^voice_hosted_/);
  });

  it('reports local cloning unavailable with its reason, refuses unknown engines, and says what a missing endpoint needs', async () => {
    for (const engine of ['local', 'omnivoice', 'f5-tts', 'qwen3-tts']) {
      const err = await rejection(cloner.cloneVoiceFromBytes(wav, { engine }));
      expect(err, engine).to.include({ status: 501, code: 'runtime_missing' });
      expect(err.message).to.match(/Keel ships no local voice-cloning engine/);
    }
    const unknown = await rejection(cloner.cloneVoiceFromBytes(wav, { engine: 'mystery' }));
    expect(unknown).to.include({ status: 400, code: 'invalid_engine' });
    expect(unknown.message).to.match(/^engine must be one of: hosted, compatible/);
    const bare = new VoiceCloner({ store, env: {} });
    expect(bare.resolveEngine()).to.deep.include({ ok: false });
    expect((await rejection(bare.cloneVoiceFromBytes(wav))).code).to.equal('runtime_missing');
    expect((await rejection(bare.cloneVoiceFromBytes(wav, { engine: 'compatible' }))).message).to.match(/remote_base_url/);
    // The catalog says the same without being asked to clone.
    const providers = await new VoiceCatalog({ env: {} }).availableProviders();
    expect(providers.unavailable.cloning.local!.reason).to.equal((await rejection(cloner.cloneVoiceFromBytes(wav, { engine: 'local' }))).message);
  });

  it('keeps every concurrent creation in the index', async () => {
    const ids = await Promise.all(Array.from({ length: 8 }, (_, i) => cloner.cloneVoiceFromBytes(wav, { name: `v${i}` })));
    expect(new Set(ids).size).to.equal(8);
    expect((await store.list()).map((v) => v.voice_id).sort()).to.deep.equal([...ids].sort());
    expect((await readdir(store.dir)).filter((n) => n.endsWith('.tmp'))).to.deep.equal([]);
  });
});
