import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { bootWorkspaceGateway, call, type Call, type ToolResult, type WorkspaceGateway } from './helpers/run-workspace.js';
import { tempDir } from './helpers/paths.js';
import { until } from './helpers/until.js';

/**
 * The adversarial path corpus of issue 12 item 2: a non-admin account (bob) aims `..`, absolute
 * paths, links and linked parents leading out, dangling links, encoded separators, Unicode
 * look-alikes, case tricks, hard links, device files, FIFOs and files swapped for links while they
 * are used at the run workspace routes (content, listing) and at the agent's file tools. No answer
 * may carry a byte of a file outside the run's folder, and no write may land outside it: 0 escapes.
 */

const SECRET = 'TOP-SECRET-OUTSIDE';
const SAFE = 'SAFE-INSIDE';
const PASSWD_MARK = 'root:x:0:0';

type Listing = { entries: Array<{ name: string; path: string }>; hidden: { outside_links: number; blocked: number; other: number } };

/** A process that swaps `name` in `folder` between a regular file (SAFE) and a link to `target`, as fast as it can, until killed. */
function swapper(folder: string, name: string, target: string, asFolder = false): ChildProcess {
  const script = `
    const fs = require('node:fs'); const path = require('node:path');
    const [folder, name, target, asFolder] = process.argv.slice(1);
    const place = path.join(folder, name), tmpLink = place + '.l', tmpReal = place + '.r';
    for (let i = 0; ; i++) {
      try { fs.rmSync(tmpLink, { force: true }); fs.symlinkSync(target, tmpLink); fs.renameSync(tmpLink, place); } catch {}
      try {
        fs.rmSync(tmpReal, { recursive: true, force: true });
        if (asFolder === '1') { fs.mkdirSync(tmpReal); fs.writeFileSync(path.join(tmpReal, 'f.txt'), '${SAFE}'); }
        else fs.writeFileSync(tmpReal, '${SAFE}');
        // A folder cannot replace a link by rename(2) onto it: the link goes first.
        if (asFolder === '1') fs.rmSync(place, { force: true });
        fs.renameSync(tmpReal, place);
      } catch {}
      if (asFolder === '1') { try { fs.rmSync(place, { recursive: true, force: true }); } catch {} }
    }`;
  return spawn(process.execPath, ['-e', script, folder, name, target, asFolder ? '1' : '0'], { stdio: 'ignore' });
}

function stopSwapper(p: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (p.exitCode !== null || p.signalCode !== null) return resolve();
    p.once('exit', () => resolve());
    p.kill('SIGKILL');
  });
}

describe('run workspace: the adversarial path corpus, 0 escapes (issue 12 item 2)', function () {
  this.timeout(300_000);
  const outside = tempDir('keel-runws-corpus-');
  let g: WorkspaceGateway;
  let runId = '';
  let folder = '';
  let toolResults = new Map<string, ToolResult>();
  const hardTarget = () => path.join(path.dirname(g.k.dataDir), `keel-corpus-hard-${process.pid}.txt`);

  /** The corpus the tools get (paths as the model would give them). */
  const toolCorpus = (): Call[] => [
    call('dotdot', 'read_file', { path: '../../../../etc/passwd' }),
    call('dotdot-sibling', 'read_file', { path: '../run-other/x.txt' }),
    call('absolute', 'read_file', { path: path.join(outside.dir, 'secret.txt') }),
    call('link-file', 'read_file', { path: 'secret-link' }),
    call('link-abs', 'read_file', { path: 'passwd-link' }),
    call('link-parent', 'read_file', { path: 'up/secret.txt' }),
    call('link-parent-list', 'list_files', { path: 'up' }),
    call('link-parent-write', 'write_file', { path: 'up/planted.txt', content: 'x' }),
    call('dangling-write', 'write_file', { path: 'dangling-out', content: 'planted through a dangling link' }),
    call('dangling-read', 'read_file', { path: 'dangling' }),
    call('edit-link', 'edit_file', { path: 'secret-link', old: 'TOP', new: 'PWN' }),
    call('hard-read', 'read_file', { path: 'hard' }),
    call('hard-write', 'write_file', { path: 'hard', content: 'overwritten through a hard link' }),
    call('hard-edit', 'edit_file', { path: 'hard', old: 'HARD', new: 'PWN' }),
    call('zero', 'read_file', { path: 'zero' }),
    call('devnode', 'read_file', { path: 'devnode' }),
    call('fifo', 'read_file', { path: 'fifo' }),
    call('fifo-link', 'read_file', { path: 'fifo-link' }),
    call('encoded', 'read_file', { path: '..%2F..%2Fsecret.txt' }),
    call('backslash', 'read_file', { path: '..\\..\\secret.txt' }),
    call('division-slash', 'read_file', { path: '\u2215etc\u2215passwd' }),
    call('fullwidth-dots', 'read_file', { path: '\uff0e\uff0e/secret.txt' }),
    call('case', 'read_file', { path: 'SECRET-LINK' }),
    call('nul', 'read_file', { path: 'a\u0000/../../etc/passwd' }),
    call('own', 'read_file', { path: 'plain.txt' }),
  ];

  before(async () => {
    g = await bootWorkspaceGateway();
    mkdirSync(path.join(outside.dir, 'up'), { recursive: true });
    writeFileSync(path.join(outside.dir, 'secret.txt'), SECRET);
    writeFileSync(path.join(outside.dir, 'up', 'secret.txt'), SECRET);
    mkdirSync(path.join(outside.dir, 'parent-out'));
    writeFileSync(path.join(outside.dir, 'parent-out', 'f.txt'), SECRET);
    // A hard link needs the same file system as the data folder: the target lies beside it.
    writeFileSync(hardTarget(), `HARD ${SECRET}`);
    runId = await g.startTools(g.bob, toolCorpus(), {}, true);
    await g.waitFor(g.bob, runId, ['waiting']);
    folder = await g.folderOf(g.bob, runId);
    writeFileSync(path.join(folder, 'plain.txt'), SAFE);
    symlinkSync(path.join(outside.dir, 'secret.txt'), path.join(folder, 'secret-link'));
    symlinkSync('/etc/passwd', path.join(folder, 'passwd-link'));
    symlinkSync(path.join(outside.dir, 'up'), path.join(folder, 'up'));
    symlinkSync('/nonexistent/keel-corpus', path.join(folder, 'dangling'));
    symlinkSync(path.join(outside.dir, 'planted.txt'), path.join(folder, 'dangling-out'));
    linkSync(hardTarget(), path.join(folder, 'hard'));
    symlinkSync('/dev/zero', path.join(folder, 'zero'));
    execFileSync('mkfifo', [path.join(folder, 'fifo')]);
    symlinkSync(path.join(folder, 'fifo'), path.join(folder, 'fifo-link'));
    // A device node inside the folder itself (mknod needs root; the suite runs as root in CI and here).
    execFileSync('mknod', [path.join(folder, 'devnode'), 'c', '1', '5']);
    toolResults = await g.resumeAndFinish(g.bob, runId);
  });
  after(async () => {
    await g?.stop();
    outside.remove();
    execFileSync('rm', ['-f', hardTarget()]);
  });

  const noSecret = (text: string, what: string) => {
    expect(text, what).to.not.contain(SECRET).and.not.contain(PASSWD_MARK).and.not.contain('\u0000\u0000\u0000\u0000');
  };

  it("the agent's file tools: every corpus call is refused or stays inside, and nothing was written outside", () => {
    expect(toolResults.get('own')).to.deep.include({ success: true, output: SAFE });
    for (const [id, r] of toolResults) {
      if (id === 'own') continue;
      expect(r.success, `${id}: ${r.output ?? ''}`).to.equal(false);
      noSecret(JSON.stringify(r), id);
    }
    expect(toolResults.get('fifo')!.error).to.contain('FIFO');
    expect(toolResults.get('devnode')!.error).to.contain('a device');
    expect(existsSync(path.join(outside.dir, 'planted.txt')), 'a write through a dangling link').to.equal(false);
    expect(existsSync(path.join(outside.dir, 'up', 'planted.txt'))).to.equal(false);
    expect(readFileSync(path.join(outside.dir, 'secret.txt'), 'utf8')).to.equal(SECRET);
    expect(readFileSync(hardTarget(), 'utf8'), 'a write through a hard link').to.equal(`HARD ${SECRET}`);
  });

  it('the content route: links out 403, up-paths and absolute paths 400, look-alikes and missing 404, devices and FIFOs 404 without hanging', async () => {
    const content = (p: string) => g.get(g.bob, `/api/gateway/runs/${runId}/workspace/content?path=${encodeURIComponent(p)}`);
    const raw = (query: string) => g.get(g.bob, `/api/gateway/runs/${runId}/workspace/content?path=${query}`);
    const cases: Array<[string, () => ReturnType<typeof content>, number]> = [
      ['..', () => content('../secret.txt'), 400],
      ['nested ..', () => content('a/../../secret.txt'), 400],
      ['.. at the end', () => content('up/..'), 400],
      ['absolute', () => content(path.join(outside.dir, 'secret.txt')), 400],
      ['double slash', () => content('//etc/passwd'), 400],
      ['drive letter', () => content('C:\\Windows\\win.ini'), 400],
      ['backslashes', () => content('..\\..\\secret.txt'), 400],
      ['%2F and %2e%2e decoded once', () => raw('%2e%2e%2Fsecret.txt'), 400],
      ['%5C (backslash) encoded', () => raw('..%5Csecret.txt'), 400],
      ['double-encoded stays a name', () => raw('%252e%252e%252Fsecret.txt'), 404],
      ['NUL', () => raw('plain.txt%00.png'), 400],
      ['U+2215 division slash', () => content('\u2215etc\u2215passwd'), 404],
      ['U+2044 fraction slash', () => content('..\u2044secret.txt'), 404],
      ['fullwidth dots', () => content('\uff0e\uff0e/secret.txt'), 404],
      ['one-dot leaders', () => content('\u2024\u2024/secret.txt'), 404],
      ['case trick on a link name', () => content('SECRET-LINK'), 404],
      ['case trick on a folder link', () => content('UP/secret.txt'), 404],
      ['link to a file outside', () => content('secret-link'), 403],
      ['absolute link', () => content('passwd-link'), 403],
      ['linked parent', () => content('up/secret.txt'), 403],
      ['dangling link', () => content('dangling'), 404],
      ['dangling link leading out', () => content('dangling-out'), 404],
      ['hard link to a file outside', () => content('hard'), 403],
      ['link to /dev/zero', () => content('zero'), 403],
      ['device node inside', () => content('devnode'), 404],
      ['FIFO', () => content('fifo'), 404],
      ['link to a FIFO', () => content('fifo-link'), 404],
    ];
    for (const [what, request, status] of cases) {
      const res = await request();
      expect(res.statusCode, `${what}: ${res.body}`).to.equal(status);
      noSecret(res.body, what);
      // A refusal names the path as the caller gave it, never a real path it did not give (the data folder).
      expect(res.body, `${what} names no real path`).to.not.contain(g.k.dataDir);
      if (!what.startsWith('absolute')) expect(res.body, `${what} names no real path`).to.not.contain(outside.dir);
    }
    expect((await content('plain.txt')).body).to.equal(SAFE);
    // The run id is a path component too: encoded separators there find no run.
    for (const id of ['..%2F..%2Fetc', '%2e%2e', runId + '%2F..']) {
      const res = await g.get(g.bob, `/api/gateway/runs/${id}/workspace/content?path=plain.txt`);
      expect(res.statusCode, id).to.equal(404);
    }
  });

  it('the listing route: links out, dangling links, devices, FIFOs and hard links are counted, never shown or followed', async () => {
    const list = (q: string) => g.get(g.bob, `/api/gateway/runs/${runId}/workspace/files${q}`);
    const top = (await list('?recursive=true')).json<Listing>();
    expect(top.entries.map((e) => e.path)).to.deep.equal(['plain.txt']);
    // Out: secret-link, passwd-link, up, zero (a link to /dev/zero). Other: dangling, dangling-out, hard, devnode, fifo, fifo-link.
    expect(top.hidden).to.deep.equal({ outside_links: 4, blocked: 0, other: 6 });
    noSecret(JSON.stringify(top), 'listing');
    expect((await list('?path=up')).statusCode).to.equal(403);
    expect((await list('?path=up%2F..')).statusCode).to.equal(400);
    expect((await list('?path=..')).statusCode).to.equal(400);
    expect((await list(`?path=${encodeURIComponent(outside.dir)}`)).statusCode).to.equal(400);
    expect((await list('?path=dangling')).statusCode).to.equal(404);
    expect((await list('?path=fifo')).statusCode).to.equal(400);
  });

  it('a file swapped for a link while it is requested: never the outside content (content and listing, 300 rounds)', async () => {
    const file = swapper(folder, 'swap', path.join(outside.dir, 'secret.txt'));
    const parent = swapper(folder, 'pswap', path.join(outside.dir, 'parent-out'), true);
    try {
      await until(() => existsSync(path.join(folder, 'swap')) && existsSync(path.join(folder, 'pswap')), (ok) => ok, 30_000);
      const seen = new Map<string, number>();
      for (let i = 0; i < 300; i++) {
        for (const p of ['swap', 'pswap/f.txt']) {
          const res = await g.get(g.bob, `/api/gateway/runs/${runId}/workspace/content?path=${p}`);
          expect([200, 403, 404], `${p}: ${res.statusCode} ${res.body}`).to.include(res.statusCode);
          if (res.statusCode === 200) expect(res.body, p).to.equal(SAFE);
          noSecret(res.body, p);
          seen.set(`${p} ${res.statusCode}`, (seen.get(`${p} ${res.statusCode}`) ?? 0) + 1);
        }
        const listing = await g.get(g.bob, `/api/gateway/runs/${runId}/workspace/files?recursive=true`);
        expect([200, 404], listing.body).to.include(listing.statusCode);
        noSecret(listing.body, 'listing while swapping');
        for (const e of listing.statusCode === 200 ? listing.json<Listing>().entries : []) expect(e.path.startsWith('pswap/') ? e.name : 'f.txt').to.equal('f.txt');
      }
      // The swap really happened both ways during the rounds (else this test could not fail).
      expect([...seen.keys()].some((k) => k.startsWith('swap 200')), JSON.stringify([...seen])).to.equal(true);
      expect([...seen.keys()].some((k) => k.startsWith('swap 403')), JSON.stringify([...seen])).to.equal(true);
    } finally {
      await stopSwapper(file);
      await stopSwapper(parent);
    }
  });

  it("a file swapped for a link while the agent's tools read, write and edit it: never outside", async () => {
    const calls: Call[] = [];
    for (let i = 0; i < 150; i++) {
      calls.push(call(`r${i}`, 'read_file', { path: 'swap' }), call(`p${i}`, 'read_file', { path: 'pswap/f.txt' }));
      calls.push(call(`w${i}`, 'write_file', { path: 'pswap/f.txt', content: `${SAFE}` }), call(`e${i}`, 'edit_file', { path: 'swap', old: 'INSIDE', new: 'INSIDE' }));
    }
    const racing = await g.startTools(g.bob, calls, {}, true);
    await g.waitFor(g.bob, racing, ['waiting']);
    const racingFolder = await g.folderOf(g.bob, racing);
    const file = swapper(racingFolder, 'swap', path.join(outside.dir, 'secret.txt'));
    const parent = swapper(racingFolder, 'pswap', path.join(outside.dir, 'parent-out'), true);
    let results: Map<string, ToolResult>;
    try {
      await until(() => existsSync(path.join(racingFolder, 'swap')) && existsSync(path.join(racingFolder, 'pswap')), (ok) => ok, 30_000);
      results = await g.resumeAndFinish(g.bob, racing);
    } finally {
      await stopSwapper(file);
      await stopSwapper(parent);
    }
    expect(results.size).to.equal(calls.length);
    let readSafe = 0;
    for (const [id, r] of results) {
      noSecret(JSON.stringify(r), id);
      if (r.success && id.startsWith('r')) {
        expect(r.output).to.equal(SAFE);
        readSafe++;
      }
    }
    expect(readSafe, 'some reads met the regular file').to.be.greaterThan(0);
    expect(readFileSync(path.join(outside.dir, 'secret.txt'), 'utf8')).to.equal(SECRET);
    expect(readFileSync(path.join(outside.dir, 'parent-out', 'f.txt'), 'utf8')).to.equal(SECRET);
    expect(statSync(path.join(outside.dir, 'parent-out')).isDirectory()).to.equal(true);
  });
});
