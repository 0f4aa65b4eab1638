import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { tempDir } from './helpers/paths.js';

/** `POST /workspace/path-check` (seed §4.5) on odd inputs, and what a non-admin may learn from it. */

type Check = { path: string | null; normalized: string | null; absolute: boolean; exists: boolean; is_dir: boolean; valid: boolean; sentence: string };

describe('workspaces: POST /workspace/path-check', function () {
  this.timeout(60_000);
  const tmp = tempDir('keel-wspc-');
  const home = path.join(tmp.dir, 'home');
  const previousHome = process.env.HOME;
  let k: TestKernel;
  let bob = '';

  const check = async (value: unknown, token = bob, body?: unknown) => {
    const res = await k.inject({ method: 'POST', url: '/api/gateway/workspace/path-check', token, payload: body ?? { path: value } });
    expect(res.statusCode, res.body).to.equal(200);
    expect(Object.keys(res.json<Check>()).sort()).to.deep.equal(['absolute', 'exists', 'is_dir', 'normalized', 'path', 'sentence', 'valid']);
    return res.json<Check>();
  };

  before(async () => {
    mkdirSync(path.join(home, '.ssh'), { recursive: true });
    writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'key');
    mkdirSync(path.join(tmp.dir, 'work'));
    writeFileSync(path.join(tmp.dir, 'work', 'file.txt'), 'x');
    process.env.HOME = home;
    k = await createTestKernel({ plugins: [{ plugin: workspacesPlugin, config: { maxPathLength: 1024 } }] });
    process.env.HOME = previousHome;
    const res = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account: 'bob' } });
    bob = res.json<{ token: { token: string } }>().token.token;
  });
  after(async () => {
    process.env.HOME = previousHome;
    await k?.stop();
    tmp.remove();
  });

  it('answers an existing absolute folder as valid, a file as not a folder, a missing path as not existing', async () => {
    const work = path.join(tmp.dir, 'work');
    expect(await check(work)).to.deep.include({ path: work, normalized: work, absolute: true, exists: true, is_dir: true, valid: true });
    expect(await check(path.join(work, 'file.txt'))).to.deep.include({ exists: true, is_dir: false, valid: false, sentence: `${path.join(work, 'file.txt')} is not a folder: a workspace is a folder.` });
    expect(await check(path.join(work, 'nope'), k.adminToken)).to.deep.include({ exists: false, valid: false, sentence: `${path.join(work, 'nope')} does not exist: a workspace must be an existing folder.` });
    // To a non-admin a missing path reads as a protected one does (below): one sentence, true of both.
    expect(await check(path.join(work, 'nope'))).to.deep.include({ exists: false, valid: false, sentence: `${path.join(work, 'nope')} does not exist or is not yours to use: a workspace must be an existing folder you may reach.` });
    expect(await check(`${work}//./`)).to.deep.include({ normalized: `${work}/`, valid: true });
  });

  it('refuses relative paths, .. components, NUL bytes, very long paths and values that are not strings', async () => {
    expect(await check('work/src')).to.deep.include({ absolute: false, valid: false, sentence: 'work/src is not an absolute path: give the folder\'s full path, starting with /.' });
    expect(await check('~/work')).to.deep.include({ absolute: false, valid: false });
    const dotted = `${tmp.dir}/work/../work`;
    expect(await check(dotted)).to.deep.include({ absolute: true, valid: false, exists: false, sentence: `${dotted} contains '..': give the folder's own absolute path.` });
    expect(await check(`${tmp.dir}/../etc`)).to.deep.include({ valid: false, sentence: `${tmp.dir}/../etc contains '..': give the folder's own absolute path.` });
    const nul = await check(`${tmp.dir}/work\u0000/etc`);
    expect(nul).to.deep.include({ valid: false, exists: false, normalized: null });
    expect(nul.sentence).to.contain('contains a NUL character');
    expect(nul.path, 'the NUL is shown escaped').to.equal(`${tmp.dir}/work\\u0000/etc`);
    const long = `/${'a'.repeat(5000)}`;
    const l = await check(long);
    expect(l).to.deep.include({ valid: false, exists: false, normalized: null });
    expect(l.sentence).to.equal('The path is 5001 characters long, over the 1024 a workspace path may have (workspaces setting maxPathLength).');
    expect(l.path!.length).to.be.below(300);
    for (const odd of [42, null, true, ['/tmp'], { path: '/tmp' }]) {
      expect(await check(odd), JSON.stringify(odd)).to.deep.include({ path: null, valid: false, sentence: 'The path must be a string: an absolute path to an existing folder.' });
    }
    expect(await check(undefined, bob, {})).to.deep.include({ path: null, valid: false });
    expect(await check('')).to.deep.include({ valid: false, sentence: 'The path is empty: give an absolute path to an existing folder.' });
    expect((await k.inject({ method: 'POST', url: '/api/gateway/workspace/path-check', token: bob, payload: '"just a string"', headers: { 'content-type': 'application/json' } })).statusCode).to.equal(400);
    expect((await k.inject({ method: 'POST', url: '/api/gateway/workspace/path-check', payload: { path: '/tmp' } })).statusCode).to.equal(401);
  });

  it('tells a non-admin nothing about protected folders (the data folder and credential folders read as missing), directly or through a link', async () => {
    const data = realpathSync(k.dataDir);
    const link = path.join(tmp.dir, 'to-data');
    symlinkSync(data, link);
    for (const probe of [data, path.join(data, 'db'), link, path.join(home, '.ssh'), path.join(home, '.ssh', 'id_rsa')]) {
      const answer = await check(probe);
      expect(answer, probe).to.deep.include({ exists: false, is_dir: false, valid: false, sentence: `${probe} does not exist or is not yours to use: a workspace must be an existing folder you may reach.` });
      expect(answer, probe).to.deep.equal(await check(path.join(tmp.dir, 'work', 'missing-too')).then((m) => ({ ...m, path: probe, normalized: probe, sentence: answer.sentence })));
    }
    // An admin is told the truth.
    expect(await check(data, k.adminToken)).to.deep.include({ exists: true, is_dir: true, valid: true });
    expect(await check(path.join(home, '.ssh', 'id_rsa'), k.adminToken)).to.deep.include({ exists: true, is_dir: false });
  });
});
