import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { artifactsPlugin } from '@keel/plugin-artifacts';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';

/**
 * `GET /files/list` through the front door (seed §4.6, reference §2.7): families, extensions, query,
 * recursion and depth, the bounds; and every way a caller might read what it must not: data and
 * credential folders (directly, through a link, by absolute path), links out of the root, `..`,
 * FIFOs, another account's policy, hosted mode.
 */

interface Entry {
  path: string;
  name: string;
  kind: 'folder' | 'file';
  family: string;
  mount?: string;
  size_bytes?: number;
}
interface Listing {
  folder_path: string;
  items: Entry[];
  truncated: boolean;
  hidden: { outside_links: number; blocked: number; other: number };
  warnings: string[];
}

/** A fake home for the gateway's OS user: credential folders, the data folder, and ordinary files. */
function makeHome(): { home: string; outside: string } {
  const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'keel-files-home-')));
  const outside = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'keel-files-outside-')));
  const file = (rel: string, text = 'x') => {
    mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
    writeFileSync(path.join(home, rel), text);
  };
  file('.ssh/id_ed25519', 'PRIVATE KEY');
  file('.aws/credentials', 'secret');
  file('notes.txt', 'hello');
  file('Photo.JPG');
  file('clip.mp4');
  file('song.flac');
  file('paper.pdf');
  file('app.ts');
  file('Dockerfile');
  file('data.jsonl');
  file('backup.tar.gz');
  file('mystery.zzz');
  file('projects/a/readme.md');
  file('projects/a/deep/deeper/deepest.txt');
  file('projects/b.py');
  writeFileSync(path.join(outside, 'outside-secret.txt'), 'not yours');
  symlinkSync(outside, path.join(home, 'link-out'));
  symlinkSync(path.join(outside, 'outside-secret.txt'), path.join(home, 'file-link-out.txt'));
  symlinkSync(path.join(home, '.ssh'), path.join(home, 'keys'));
  symlinkSync(path.join(home, 'missing'), path.join(home, 'dangling'));
  symlinkSync(home, path.join(home, 'projects', 'loop'));
  execFileSync('mkfifo', [path.join(home, 'pipe.txt')]);
  return { home, outside };
}

describe('files: GET /files/list', function () {
  this.timeout(180_000);
  let k: TestKernel;
  let bob = '';
  let home = '';
  let outside = '';
  let dataDir = '';
  const savedHome = process.env.HOME;

  const list = async (token: string, query: string, status = 200) => {
    const res = await k.inject({ url: `/api/gateway/files/list${query ? `?${query}` : ''}`, token });
    expect(res.statusCode, `${query}: ${res.body}`).to.equal(status);
    return res.json<Listing>();
  };
  const refusal = async (token: string, query: string, status: number) => {
    const res = await k.inject({ url: `/api/gateway/files/list?${query}`, token });
    expect(res.statusCode, `${query}: ${res.body}`).to.equal(status);
    return JSON.stringify(res.json());
  };
  const names = (l: Listing) => l.items.map((e) => e.name);

  before(async () => {
    ({ home, outside } = makeHome());
    // The built-in refusals are the gateway OS user's credential folders: that user's home is the fake one.
    process.env.HOME = home;
    dataDir = path.join(home, '.keel-data');
    mkdirSync(dataDir);
    k = await createTestKernel({ dataDir, plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, artifactsPlugin] });
    const created = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account: 'bob' } });
    expect(created.statusCode, created.body).to.equal(201);
    bob = created.json<{ token: { token: string } }>().token.token;
  });
  after(async () => {
    await k?.stop();
    process.env.HOME = savedHome;
    rmSync(home, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('lists the main root: folders first, then by name, with families and sizes; protected and outside entries hidden', async () => {
    const root = await list(k.adminToken, '');
    expect(root.folder_path).to.equal('');
    expect(names(root)).to.deep.equal([
      'projects', 'app.ts', 'backup.tar.gz', 'clip.mp4', 'data.jsonl', 'Dockerfile', 'mystery.zzz', 'notes.txt', 'paper.pdf', 'Photo.JPG', 'song.flac',
    ]);
    const family = Object.fromEntries(root.items.map((e) => [e.name, e.family]));
    expect(family).to.deep.include({
      projects: 'folder', 'app.ts': 'code', 'backup.tar.gz': 'archive', 'clip.mp4': 'video', 'data.jsonl': 'json', Dockerfile: 'code',
      'mystery.zzz': 'other', 'notes.txt': 'text', 'paper.pdf': 'document', 'Photo.JPG': 'image', 'song.flac': 'audio',
    });
    expect(root.items.find((e) => e.name === 'notes.txt')).to.deep.include({ path: 'notes.txt', kind: 'file', size_bytes: 5 });
    // .ssh, .aws, the data folder and `keys` (a link to .ssh) are blocked; two links lead out; the dangling link and the FIFO are other.
    expect(root.hidden).to.deep.equal({ blocked: 4, outside_links: 2, other: 2 });
    expect(JSON.stringify(root)).not.to.include('PRIVATE').and.not.to.include('.ssh').and.not.to.include('outside-secret');
  });

  it('filters by family, extensions (comma or newline), query, and can leave folders out', async () => {
    expect(names(await list(k.adminToken, 'family=image'))).to.deep.equal(['Photo.JPG']);
    expect(names(await list(k.adminToken, 'family=code,json'))).to.deep.equal(['app.ts', 'data.jsonl', 'Dockerfile']);
    expect(names(await list(k.adminToken, `extensions=${encodeURIComponent('.TXT\npdf')}`))).to.deep.equal(['notes.txt', 'paper.pdf']);
    expect(names(await list(k.adminToken, 'extensions=gz,mp4'))).to.deep.equal(['backup.tar.gz', 'clip.mp4']);
    expect(names(await list(k.adminToken, 'query=PHOTO'))).to.deep.equal(['Photo.JPG']);
    expect(names(await list(k.adminToken, 'include_directories=false')).includes('projects')).to.equal(false);
  });

  it('recurses with max_depth, enters each real folder once, stops at limit with truncated', async () => {
    const all = await list(k.adminToken, 'path=projects&recursive=true');
    expect(all.folder_path).to.equal('projects');
    expect(all.items.map((e) => e.path)).to.deep.equal([
      'projects/a', 'projects/a/deep', 'projects/a/deep/deeper', 'projects/a/deep/deeper/deepest.txt', 'projects/a/readme.md', 'projects/loop', 'projects/b.py',
    ]);
    // `projects/loop` links back to the root: inside it, so listed, but a cycle, never walked into.
    expect(all.truncated).to.equal(false);
    const shallow = await list(k.adminToken, 'path=projects&recursive=true&max_depth=2');
    expect(shallow.items.map((e) => e.path)).to.deep.equal(['projects/a', 'projects/a/deep', 'projects/a/readme.md', 'projects/loop', 'projects/b.py']);
    const limited = await list(k.adminToken, 'path=projects&recursive=true&limit=2');
    expect(limited.items).to.have.length(2);
    expect(limited.truncated).to.equal(true);
    const whole = await list(k.adminToken, 'recursive=true&limit=5000');
    expect(whole.truncated).to.equal(false);
    expect(whole.items.filter((e) => e.name === 'deepest.txt')).to.have.length(1);
  });

  it('refuses data and credential folders (403), directly, by absolute path and through a link', async () => {
    for (const query of ['path=.ssh', `path=${encodeURIComponent(path.join(home, '.ssh'))}`, 'path=keys', 'path=.aws', 'path=.keel-data', `path=${encodeURIComponent(dataDir)}`, 'path=.keel-data/../.ssh']) {
      const body = await refusal(k.adminToken, query, 403);
      expect(body, query).to.match(/protected folder/);
      expect(body).not.to.include('PRIVATE');
    }
  });

  it('refuses paths out of the roots, links leading out, files, missing folders and bad parameters', async () => {
    expect(await refusal(k.adminToken, 'path=../', 403)).to.match(/leads outside/);
    expect(await refusal(k.adminToken, 'path=projects/../../', 403)).to.match(/leads outside/);
    expect(await refusal(k.adminToken, 'path=/etc', 403)).to.match(/outside the folders you may list/);
    expect(await refusal(k.adminToken, `path=${encodeURIComponent(outside)}`, 403)).to.match(/outside the folders you may list/);
    expect(await refusal(k.adminToken, 'path=link-out', 403)).to.match(/link leading outside/);
    expect(await refusal(k.adminToken, 'path=notes.txt', 400)).to.match(/not a folder/);
    expect(await refusal(k.adminToken, 'path=pipe.txt', 400)).to.match(/not a folder/);
    expect(await refusal(k.adminToken, 'path=nothing-here', 404)).to.match(/does not exist/);
    for (const query of ['limit=0', 'limit=999999', 'max_depth=-1', 'max_depth=51', 'family=pictures', 'recursive=maybe', 'colour=red']) await refusal(k.adminToken, query, 400);
  });

  it("judges a non-admin by its own policy: nothing by default, then only the folder an admin grants", async () => {
    const none = await list(bob, '');
    expect(none.items).to.deep.equal([]);
    // To a non-admin, refused, protected and missing paths read alike (403, one sentence): no existence oracle.
    const hidden = /does not exist or is not a folder you may list/;
    expect(await refusal(bob, 'path=notes.txt', 403)).to.match(hidden);
    expect(await refusal(bob, 'path=projects', 403)).to.match(hidden);
    expect(await refusal(bob, 'path=no-such-folder', 403)).to.match(hidden);
    expect(await refusal(bob, 'path=.ssh', 403)).to.match(hidden);
    expect(await refusal(bob, 'path=link-out', 403)).to.match(hidden);
    const granted = await k.inject({ method: 'PUT', url: '/api/gateway/workspace/policy/bob', token: k.adminToken, payload: { posture: 'allowed_only', default_mode: 'ro', folders: [{ path: path.join(home, 'projects', 'a'), mode: 'ro' }] } });
    expect(granted.statusCode, granted.body).to.equal(200);
    const root = await list(bob, '');
    expect(root.items).to.deep.equal([{ path: 'a', name: 'a', kind: 'folder', family: 'folder', mount: 'a' }]);
    expect(names(await list(bob, 'path=a'))).to.deep.equal(['deep', 'readme.md']);
    expect(names(await list(bob, `path=${encodeURIComponent(path.join(home, 'projects', 'a', 'deep'))}`))).to.deep.equal(['deeper']);
    expect(await refusal(bob, 'path=a/..', 403)).to.match(/leads outside/);
    expect(await refusal(bob, 'path=projects', 403)).to.match(hidden);
    expect(await refusal(bob, 'path=a/missing', 403)).to.match(hidden);
    expect(await refusal(bob, `path=${encodeURIComponent(path.join(home, '.ssh'))}`, 403)).to.match(hidden);
    // The admin's own listing is unchanged by bob's policy.
    expect(names(await list(k.adminToken, 'path=projects'))).to.include('b.py');
  });

  it('never hangs on a FIFO and stops at its scan bound', async () => {
    const root = await list(k.adminToken, 'recursive=true&family=text');
    expect(names(root)).to.include('notes.txt').and.not.to.include('pipe.txt');
  });
});

describe('files: hosted mode and bounds', function () {
  this.timeout(180_000);
  let k: TestKernel;
  let bob = '';
  let root = '';

  before(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'keel-files-root-')));
    for (let i = 0; i < 30; i += 1) writeFileSync(path.join(root, `f${String(i).padStart(2, '0')}.txt`), 'x');
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: artifactsPlugin, config: { hostedUserAuth: true, files: { root, maxEntriesScanned: 10 } } }] });
    const created = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account: 'bob' } });
    bob = created.json<{ token: { token: string } }>().token.token;
    // Even with a policy that reaches the folder, hosted mode keeps /files/* for admins.
    const granted = await k.inject({ method: 'PUT', url: '/api/gateway/workspace/policy/bob', token: k.adminToken, payload: { posture: 'any_except_denied', default_mode: 'ro', folders: [] } });
    expect(granted.statusCode, granted.body).to.equal(200);
  });
  after(async () => {
    await k?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers 403 to a non-admin in hosted mode, and lists for an admin', async () => {
    const res = await k.inject({ url: '/api/gateway/files/list', token: bob });
    expect(res.statusCode).to.equal(403);
    expect(res.json<{ detail: string }>().detail).to.match(/only an admin may list server files/);
    expect((await k.inject({ url: '/api/gateway/files/list' })).statusCode).to.equal(401);
  });

  it('stops at maxEntriesScanned with truncated and a sentence', async () => {
    const res = await k.inject({ url: '/api/gateway/files/list?limit=5000', token: k.adminToken });
    expect(res.statusCode, res.body).to.equal(200);
    const listing = res.json<Listing>();
    expect(listing.items.length).to.be.at.most(10);
    expect(listing.truncated).to.equal(true);
    expect(listing.warnings.join(' ')).to.match(/stopped after looking at 10 entries/);
  });
});
