/**
 * `prefixRange` / `prefixEnd` from the SDK against a real LMDB database (lmdb-js, ordered-binary
 * keys): a range over a prefix holds every key of the prefix, whatever its next component starts
 * with (U+FFFF, U+10000, U+10FFFF, the empty string, a number), and nothing of a neighbouring prefix
 * (an account whose name extends this one's). The old end `[prefix, '\uffff']` is checked to miss
 * the keys above the BMP, so the test shows what it guards against.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { open, type Database, type Key, type RootDatabase } from 'lmdb';
import { prefixEnd, prefixRange } from '@keel/plugin-sdk';

const HOSTILE = ['', '\uffff', '\uffff\uffff', '\u{10000}', '\u{1F600} chat', '\u{10FFFF}', '\u{10FFFF}\u{10FFFF}z', 'a', '~', '\x00', '\x1b'];

describe('ranges: prefixRange over a real LMDB database', function () {
  this.timeout(60_000);
  let dir = '';
  let root: RootDatabase;
  let db: Database<string, Key>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'keel-prefix-range-'));
    root = open({ path: dir });
    db = root.openDB<string, Key>({ name: 'keys' });
    for (const account of ['alice', 'alic', 'alice2', 'alice\x01', 'b']) {
      await db.put([account], `${account}/self`);
      for (const id of HOSTILE) {
        await db.put([account, id], `${account}/${id}`);
        await db.put([account, id, 'child'], `${account}/${id}/child`);
        await db.put([account, id, 7], `${account}/${id}/7`);
      }
      await db.put([account, 42], `${account}/42`);
    }
    for (const text of ['docs', 'docs/', 'docs/a', 'docs/\uffff', 'docs/\u{1F600}', 'docs/\u{10FFFF}\u{10FFFF}', 'docs0', 'doc', 'e', '\u{1F600}', '\u{1F600}x']) await db.put(text, text);
  });
  after(async () => {
    await root.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const values = (range: object): string[] => [...db.getRange(range)].map((e) => e.value);
  const expectedOf = (account: string): string[] => [
    `${account}/self`, ...HOSTILE.flatMap((id) => [`${account}/${id}`, `${account}/${id}/child`, `${account}/${id}/7`]), `${account}/42`,
  ];

  it('the old end [account, "\\uffff"] misses keys whose next component starts above U+FFFF or with it (what the helper fixes)', () => {
    const old = values({ start: ['alice'], end: ['alice', '\uffff'] });
    expect(old).to.not.include('alice/\u{1F600} chat');
    expect(old).to.not.include('alice/\u{10FFFF}');
    expect(old).to.not.include('alice/\uffff');
  });

  it('an array prefix covers every key of the account, and no key of another account', () => {
    for (const account of ['alice', 'alic', 'alice2', 'alice\x01', 'b']) {
      const got = values(prefixRange([account]));
      expect(got.sort()).to.deep.equal(expectedOf(account).sort());
      expect(db.getKeysCount(prefixRange([account]))).to.equal(expectedOf(account).length);
    }
  });

  it('reverse walks the same keys, last first', () => {
    const forward = values(prefixRange(['alice']));
    const backward = values(prefixRange(['alice'], { reverse: true }));
    expect(backward).to.deep.equal([...forward].reverse());
    expect(backward[0], 'the highest key comes first').to.equal('alice/\u{10FFFF}\u{10FFFF}z/child');
  });

  it('a two-component prefix covers the children of one id, including ids of U+FFFF and above', () => {
    for (const id of HOSTILE) {
      expect(values(prefixRange(['alice', id])).sort()).to.deep.equal([`alice/${id}`, `alice/${id}/child`, `alice/${id}/7`].sort());
    }
  });

  it('a partial string prefix as the last component covers every string starting with it', () => {
    const got = values(prefixRange(['alice', '\uffff'], { partial: true }));
    expect(got.sort()).to.deep.equal(['alice/\uffff', 'alice/\uffff/child', 'alice/\uffff/7', 'alice/\uffff\uffff', 'alice/\uffff\uffff/child', 'alice/\uffff\uffff/7'].sort());
    const emoji = values(prefixRange(['alice', '\u{10FFFF}'], { partial: true }));
    expect(emoji.sort()).to.deep.equal(['alice/\u{10FFFF}', 'alice/\u{10FFFF}/child', 'alice/\u{10FFFF}/7', 'alice/\u{10FFFF}\u{10FFFF}z', 'alice/\u{10FFFF}\u{10FFFF}z/child', 'alice/\u{10FFFF}\u{10FFFF}z/7'].sort());
  });

  it('a partial empty string covers every string component of the prefix', () => {
    const got = values(prefixRange(['alice', ''], { partial: true }));
    const strings = HOSTILE.flatMap((id) => [`alice/${id}`, `alice/${id}/child`, `alice/${id}/7`]);
    expect(got.sort()).to.deep.equal(strings.sort());
  });

  it('a string prefix covers top-level string keys that start with it, above the BMP too', () => {
    expect(values(prefixRange('docs/'))).to.deep.equal(['docs/', 'docs/a', 'docs/\uffff', 'docs/\u{1F600}', 'docs/\u{10FFFF}\u{10FFFF}']);
    expect(values(prefixRange('\u{1F600}'))).to.deep.equal(['\u{1F600}', '\u{1F600}x']);
    expect(values(prefixRange('docs/', { reverse: true }))[0]).to.equal('docs/\u{10FFFF}\u{10FFFF}');
  });

  it('prefixEnd refuses a partial prefix that does not end with a string', () => {
    expect(() => prefixEnd(['alice', 3], { partial: true })).to.throw(TypeError);
  });
});
