import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable, Transform } from 'node:stream';
import { streamToNewFile } from '@keel/plugin-sdk';

/** The SDK's `streamToNewFile`: a new file with the stream's bytes, or no file at all. */
describe('sdk: streamToNewFile', () => {
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'keel-stream-file-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the bytes through the transforms with the mode asked', async () => {
    const upper = new Transform({ transform: (chunk: Buffer, _e, done) => done(null, Buffer.from(chunk.toString().toUpperCase())) });
    await streamToNewFile(Readable.from([Buffer.from('abc'), Buffer.from('def')]), [upper], path.join(dir, 'a'), 0o640);
    expect(readFileSync(path.join(dir, 'a'), 'utf8')).to.equal('ABCDEF');
  });

  it('leaves no file once it has rejected, for a source destroyed before or during the copy (many at once)', async () => {
    await Promise.all(Array.from({ length: 64 }, async (_, i) => {
      const source = new PassThrough();
      source.on('error', () => undefined);
      if (i % 2) source.destroy(new Error('gone'));
      else setImmediate(() => source.destroy(new Error('gone mid-copy')));
      const file = path.join(dir, `${i}.part`);
      expect(await streamToNewFile(source, [], file).then(() => 'resolved', () => 'rejected')).to.equal('rejected');
      expect(existsSync(file), file).to.equal(false);
    }));
    expect(readdirSync(dir)).to.deep.equal([]);
  });

  it('refuses a name that exists (O_EXCL) and leaves that file as it was', async () => {
    const file = path.join(dir, 'taken');
    writeFileSync(file, 'mine');
    const err = await streamToNewFile(Readable.from([Buffer.from('theirs')]), [], file).then(() => null, (e: NodeJS.ErrnoException) => e);
    expect(err?.code).to.equal('EEXIST');
    expect(readFileSync(file, 'utf8')).to.equal('mine');
  });
});
