/**
 * Attack: hostile voice archives given to `importArchive` / `importVoice` (reference B.11 export
 * format). None may write outside the store, inflate past the store's limits, overwrite another
 * voice, or leave half a voice behind; each is refused with a sentence, and the store keeps working.
 */
import { expect } from 'chai';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync, strToU8 } from 'fflate';
import { ClonedVoiceStore, VoiceError } from '@keel/voice';
import { toneWav } from './helpers/voice-remote.js';

async function rejection(promise: Promise<unknown>): Promise<VoiceError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(VoiceError);
    return err as VoiceError;
  }
  throw new Error('expected a VoiceError');
}

const wav = toneWav(0.1);
const record = (extra: Record<string, unknown> = {}) => strToU8(JSON.stringify({ voice_id: '0'.repeat(32), name: 'Imported', created_at: 1, reference_files: ['ref_0.wav'], reference_text: null, engine: 'compatible', meta: {}, ...extra }));

describe('voice cloning attack: hostile import archives', function () {
  this.timeout(120_000);
  let dir: string;
  let store: ClonedVoiceStore;
  let existing: string;
  let snapshot: string[];

  /** Every path under `dir` (the store and its parent), to prove nothing was added anywhere. */
  async function tree(): Promise<string[]> {
    return (await readdir(dir, { recursive: true })).map(String).sort();
  }

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keel-clone-import-'));
    store = new ClonedVoiceStore(join(dir, 'store'), { maxInflatedBytes: 8 * 1024 * 1024, maxReferenceBytes: 4 * 1024 * 1024, maxArchiveEntries: 10, maxArchiveBytes: 2 * 1024 * 1024 });
    existing = (await store.create({ references: [{ bytes: wav, suffix: '.wav' }], name: 'Original', engine: 'compatible' })).voice_id;
    snapshot = await tree();
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function expectUntouched(): Promise<void> {
    expect(await tree()).to.deep.equal(snapshot);
    expect((await store.list()).map((v) => v.voice_id)).to.deep.equal([existing]);
    expect(await readFile(join(store.dir, existing, 'ref_0.wav'))).to.deep.equal(wav);
  }

  it('refuses entries that climb out of refs/ or name absolute paths', async () => {
    for (const name of ['../evil.wav', 'refs/../../evil.wav', '/tmp/evil.wav', 'refs/sub/evil.wav', 'refs/..', 'refs/.hidden.wav', 'evil.wav', `${existing}/ref_0.wav`, 'refs\\..\\evil.wav']) {
      const zip = zipSync({ 'voice.json': record(), [name]: wav });
      const err = await rejection(store.importArchive(zip));
      expect(err.status, name).to.equal(400);
      expect(err.code).to.equal('invalid_voice_archive');
      expect(err.message).to.match(/only voice\.json and refs\/<file name> are allowed/);
      await expectUntouched();
    }
  });

  it('stops a zip bomb at the inflate limit (413) without inflating it whole', async () => {
    const bomb = zipSync({ 'voice.json': record(), 'refs/ref_0.wav': new Uint8Array(64 * 1024 * 1024) }, { level: 9 });
    expect(bomb.length).to.be.below(2 * 1024 * 1024);
    const err = await rejection(store.importArchive(bomb));
    expect(err.status).to.equal(413);
    expect(err.message).to.match(/inflates to more than 8388608 bytes/);
    // Many entries each under the per-file limit still add up to the archive's limit.
    const many: Record<string, Uint8Array> = { 'voice.json': record() };
    for (let i = 0; i < 5; i++) many[`refs/r${i}.wav`] = new Uint8Array(3 * 1024 * 1024);
    expect((await rejection(store.importArchive(zipSync(many, { level: 9 })))).status).to.equal(413);
    await expectUntouched();
  });

  it('refuses one reference past maxReferenceBytes, too many entries, an oversized voice.json and an oversized archive', async () => {
    const big = zipSync({ 'voice.json': record(), 'refs/ref_0.wav': new Uint8Array(5 * 1024 * 1024) }, { level: 9 });
    expect((await rejection(store.importArchive(big))).message).to.match(/larger than 4194304 bytes/);
    const entries: Record<string, Uint8Array> = { 'voice.json': record() };
    for (let i = 0; i < 12; i++) entries[`refs/r${i}.wav`] = wav;
    expect((await rejection(store.importArchive(zipSync(entries)))).message).to.match(/more than 10 entries/);
    const fat = zipSync({ 'voice.json': record({ meta: { pad: 'x'.repeat(100_000) } }), 'refs/ref_0.wav': wav });
    expect((await rejection(store.importArchive(fat))).message).to.match(/voice\.json is larger than/);
    const huge = new Uint8Array(3 * 1024 * 1024);
    huge.set([0x50, 0x4b, 0x03, 0x04]);
    expect((await rejection(store.importArchive(huge))).status).to.equal(413);
    await expectUntouched();
  });

  it('never overwrites another voice: a voice.json naming an existing id, or listing foreign files, gets a new id and new file names', async () => {
    const zip = zipSync({ 'voice.json': record({ voice_id: existing, name: 'Impostor', reference_files: ['../../../etc/passwd', 'ref_0.wav'] }), 'refs/ref_0.wav': toneWav(0.3), 'refs/second.ogg': wav });
    const id = await store.importArchive(zip);
    expect(id).to.not.equal(existing);
    const imported = await store.get(id);
    expect(imported.name).to.equal('Impostor');
    expect(imported.reference_files).to.deep.equal(['ref_0.wav', 'ref_1.ogg']);
    expect(imported.meta.imported_from).to.equal(existing);
    expect((await store.get(existing)).name).to.equal('Original');
    expect(await readFile(join(store.dir, existing, 'ref_0.wav'))).to.deep.equal(wav);
    expect((await readdir(store.dir)).sort()).to.deep.equal([existing, id, 'index.json'].sort());
  });

  it('refuses what is not a voice archive, and references that are not audio, leaving nothing behind', async () => {
    expect((await rejection(store.importArchive(strToU8('hello')))).message).to.match(/not a zip archive/);
    const whole = zipSync({ 'voice.json': record(), 'refs/ref_0.wav': wav }, { level: 0 });
    expect((await rejection(store.importArchive(whole.subarray(0, whole.length - 200)))).message).to.match(/truncated|not a readable zip|has no voice\.json/);
    expect((await rejection(store.importArchive(zipSync({ 'refs/ref_0.wav': wav })))).message).to.match(/has no voice\.json/);
    expect((await rejection(store.importArchive(zipSync({ 'voice.json': strToU8('[1,2]'), 'refs/ref_0.wav': wav })))).message).to.match(/not an object/);
    expect((await rejection(store.importArchive(zipSync({ 'voice.json': strToU8('{oops'), 'refs/ref_0.wav': wav })))).message).to.match(/not JSON/);
    expect((await rejection(store.importArchive(zipSync({ 'voice.json': record() })))).code).to.equal('missing_reference_audio');
    expect((await rejection(store.importArchive(zipSync({ 'voice.json': record(), 'refs/run.sh': strToU8('#!/bin/sh') })))).code).to.equal('unsupported_reference_format');
    expect((await rejection(store.importArchive(zipSync({ 'voice.json': record({ name: 'x'.repeat(500) }), 'refs/ref_0.wav': wav })))).code).to.equal('invalid_voice_name');
    expect((await rejection(store.importArchive(zipSync({ 'voice.json': record({ engine: '../../x' }), 'refs/ref_0.wav': wav })))).code).to.equal('invalid_engine');
    await expectUntouched();
  });

  it('imports from a regular file only: a symlink or a folder is refused', async () => {
    const good = join(dir, 'good.zip');
    await writeFile(good, zipSync({ 'voice.json': record(), 'refs/ref_0.wav': wav }));
    const link = join(dir, 'link.zip');
    await symlink(good, link);
    expect((await rejection(store.importVoice(link))).message).to.match(/cannot be opened/);
    const folder = join(dir, 'folder.zip');
    await mkdir(folder);
    expect((await rejection(store.importVoice(folder))).message).to.match(/not a regular file/);
    // And the store still imports a good archive afterwards.
    const id = await store.importVoice(good);
    expect((await store.get(id)).name).to.equal('Imported');
  });
});
