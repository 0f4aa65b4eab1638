import { expect } from 'chai';
import { artifactsGateway } from './helpers/artifacts.js';

/**
 * Attack (issue 12): a non-admin uploading thousands of files of one name into one session. Each
 * upload used to read every artifact of the session inside the gateway's write transaction (measured:
 * 5 ms per upload at first, 67 ms after 4,000, holding every other write of the gateway meanwhile);
 * names are now looked up in an index. This test keeps the naming rules true on that index: equal
 * names get distinct digest-suffixed aliases, the same bytes keep theirs, another session or run is
 * another namespace.
 */
describe('attack: many uploads of one name into one session', function () {
  this.timeout(300_000);
  const gw = artifactsGateway();
  before(() => gw.boot());
  after(() => gw.stop());

  it('gives every different file its own alias and path, and the same bytes the same ones', async () => {
    const aliases = new Set<string>();
    const paths = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const answer = await gw.put(gw.bob, 'many', 'same.txt', `bytes ${i}`);
      aliases.add(answer.metadata.tags.alias!);
      paths.add(answer.metadata.path);
    }
    expect(aliases.size).to.equal(300);
    expect(paths.size).to.equal(300);
    expect(aliases.has('same.txt')).to.equal(true);
    for (const alias of aliases) expect(alias).to.match(/^same(-[0-9a-f]{8,64})?\.txt$/);
    const again = await gw.put(gw.bob, 'many', 'same.txt', 'bytes 7');
    const first = await gw.put(gw.bob, 'many', 'same.txt', 'bytes 0');
    expect(first.metadata.tags.alias).to.equal('same.txt');
    expect(aliases.has(again.metadata.tags.alias!)).to.equal(true);
    // Another session and another account start from the plain name.
    expect((await gw.put(gw.bob, 'other', 'same.txt', 'bytes 5')).metadata.tags.alias).to.equal('same.txt');
    expect((await gw.put(gw.eve, 'many', 'same.txt', 'bytes 5')).metadata.tags.alias).to.equal('same.txt');
    // A name longer than an LMDB key may be is indexed by its digest.
    const long = `${'l'.repeat(250)}.txt`;
    const a = await gw.put(gw.bob, 'many', long, 'one');
    const b = await gw.put(gw.bob, 'many', long, 'two');
    expect(a.metadata.tags.alias).to.not.equal(b.metadata.tags.alias);
  });
});
