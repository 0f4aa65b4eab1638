import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { BlobStore, BlobTooLarge } from '../../plugins/artifacts/dist/blob-store.js';

/**
 * The blob store's temporary files (unit level): a write that fails for any reason leaves no
 * `.part` file behind once it has rejected — the upload route answers right after, and a file
 * created by a late `open` would stay until the next start.
 */
describe('artifacts: the blob store leaves no temporary file after a failed write', () => {
  let root = '';
  beforeEach(() => (root = mkdtempSync(path.join(os.tmpdir(), 'keel-blobs-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const store = () => new BlobStore((account) => path.join(root, 'accounts', account), path.join(root, 'tmp'));
  const tmpFiles = () => (existsSync(path.join(root, 'tmp')) ? readdirSync(path.join(root, 'tmp')) : []);

  it('a source already destroyed when the write starts (the parser failed first)', async () => {
    for (let i = 0; i < 50; i++) {
      const source = new PassThrough();
      source.on('error', () => undefined); // as the upload route does
      source.destroy(new Error('the upload failed'));
      const failed = await store().write('bob', source, 1024).then(() => false, () => true);
      expect(failed).to.equal(true);
      expect(tmpFiles(), `round ${i}`).to.deep.equal([]);
    }
  });

  it('a source destroyed in the middle of its bytes', async () => {
    const source = new PassThrough();
    source.on('error', () => undefined);
    const write = store().write('bob', source, 1024);
    source.write(Buffer.alloc(100, 1));
    setImmediate(() => source.destroy(new Error('client gone')));
    expect(await write.then(() => false, () => true)).to.equal(true);
    expect(tmpFiles()).to.deep.equal([]);
  });

  it('a source larger than the limit (BlobTooLarge)', async () => {
    const err = await store().write('bob', Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), 1024).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(BlobTooLarge);
    expect(tmpFiles()).to.deep.equal([]);
  });

  it('a good write leaves one pending file that commit names by digest and discard removes', async () => {
    const blobs = store();
    const a = await blobs.write('bob', Readable.from([Buffer.from('abc')]), 1024);
    expect(tmpFiles()).to.have.length(1);
    await a.commit();
    expect(tmpFiles()).to.deep.equal([]);
    expect(await blobs.exists('bob', a.sha256)).to.equal(true);
    const b = await blobs.write('bob', Readable.from([Buffer.from('xyz')]), 1024);
    await b.discard();
    expect(tmpFiles()).to.deep.equal([]);
  });
});
