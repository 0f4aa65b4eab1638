import { execFileSync } from 'node:child_process';
import { chmodSync, linkSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { bootWorkspaceGateway, call, type WorkspaceGateway } from './helpers/run-workspace.js';
import { tempDir } from './helpers/paths.js';
import { until } from './helpers/until.js';

/**
 * The run workspace routes of seed §2.7/§4.5 (issue 12 item 3) through HTTP: the folder's info with
 * who sits where, the listing, the content with its headers and ranges, and opening the folder on
 * the gateway computer.
 */

type Listing = {
  path: string;
  entries: Array<{ name: string; path: string; type: string; size_bytes: number | null; mtime: string }>;
  truncated: boolean;
  limit: number;
  recursive: boolean;
  hidden: { outside_links: number; blocked: number; other: number };
};
type Info = Record<string, unknown> & { host: { hostname: string; caller_is_this_machine: boolean } };

describe('run workspace routes: info, listing, content, open (issue 12 item 3)', function () {
  this.timeout(180_000);
  const outside = tempDir('keel-runws-routes-');
  const openerLog = path.join(outside.dir, 'opened.txt');
  const opener = path.join(outside.dir, 'fake-file-manager.sh');
  let g: WorkspaceGateway;
  let bobRun = '';
  let bobFolder = '';
  before(async () => {
    // A real program standing in for the desktop's file manager: it records the folder it was asked to show.
    writeFileSync(opener, `#!/bin/sh\nprintf '%s' "$1" > '${openerLog}'\n`);
    chmodSync(opener, 0o755);
    g = await bootWorkspaceGateway({ runWorkspace: { maxListEntries: 50, opener } });
    bobRun = await g.startTools(g.bob, [
      call('1', 'write_file', { path: 'b.txt', content: 'bee' }),
      call('2', 'write_file', { path: 'A.txt', content: 'ay' }),
      call('3', 'write_file', { path: 'c/d.txt', content: 'dee' }),
      call('4', 'write_file', { path: 'Zeta/e.txt', content: 'e' }),
      call('5', 'write_file', { path: 'alpha/deep/f.txt', content: 'f' }),
      call('6', 'write_file', { path: 'page.html', content: '<script>alert(1)</script>' }),
      call('7', 'write_file', { path: 'digits.txt', content: '0123456789' }),
    ], { session_id: 'routes-chat' });
    await g.waitFor(g.bob, bobRun, ['completed']);
    bobFolder = await g.folderOf(g.bob, bobRun);
  });
  after(async () => {
    await g?.stop();
    outside.remove();
  });

  const ws = (runId: string, rest = '') => `/api/gateway/runs/${runId}/workspace${rest}`;

  it("answers the folder's info: kind, level, summary, the host and who sits at it", async () => {
    const bob = await g.get(g.bob, ws(bobRun));
    expect(bob.statusCode, bob.body).to.equal(200);
    const info = bob.json<Info>();
    expect(info).to.include({ run_id: bobRun, kind: 'session', session_id: 'routes-chat', exists: true, open_supported: false, workspace_level: 'account' });
    expect(info.workspace_root, 'a non-admin never learns the data path').to.match(/^workspaces\/session-[0-9a-f]+$/);
    expect(info.workspace_summary).to.equal('Deny everything, allow listed workspaces');
    expect(info.workspace_clamped).to.deep.equal([]);
    expect(info.host).to.deep.equal({ hostname: os.hostname(), caller_is_this_machine: true });

    const adminRun = await g.startTools(g.admin, []);
    const local = (await g.get(g.admin, ws(adminRun))).json<Info>();
    expect(local).to.include({ kind: 'run', open_supported: true, workspace_level: 'gateway' });
    expect(local.workspace_root).to.equal(realpathSync(path.join(g.k.dataDir, 'workspaces', `run-${adminRun}`)));
    const remote = (await g.k.inject({ url: ws(adminRun), token: g.admin, remoteAddress: '192.0.2.7' })).json<Info>();
    expect(remote.host.caller_is_this_machine).to.equal(false);
    expect(remote.open_supported).to.equal(false);
    const proxied = (await g.get(g.admin, ws(adminRun), { 'x-forwarded-for': '198.51.100.4' })).json<Info>();
    expect(proxied.open_supported, 'a request a proxy forwarded is not local').to.equal(false);
    const v6 = (await g.k.inject({ url: ws(adminRun), token: g.admin, remoteAddress: '::1' })).json<Info>();
    expect(v6.open_supported).to.equal(true);
    const mapped = (await g.k.inject({ url: ws(adminRun), token: g.admin, remoteAddress: '::ffff:10.0.0.1' })).json<Info>();
    expect(mapped.open_supported).to.equal(false);
  });

  it("answers 404 for another account's run on every route, an admin's too, and for an unknown run", async () => {
    for (const token of [g.eve, g.admin]) {
      expect((await g.get(token, ws(bobRun))).statusCode).to.equal(404);
      expect((await g.get(token, ws(bobRun, '/files'))).statusCode).to.equal(404);
      expect((await g.get(token, ws(bobRun, '/content?path=b.txt'))).statusCode).to.equal(404);
      expect((await g.k.inject({ method: 'POST', url: ws(bobRun, '/open'), token })).statusCode).to.equal(404);
    }
    expect((await g.get(g.bob, ws('no-such-run', '/files'))).statusCode).to.equal(404);
    expect((await g.get('', ws(bobRun))).statusCode).to.equal(401);
  });

  it('lists folders first, then files, by name (case-insensitive); recursive walks breadth-first; the marker is never shown', async () => {
    const top = (await g.get(g.bob, ws(bobRun, '/files'))).json<Listing>();
    expect(top.entries.map((e) => `${e.type}:${e.path}`)).to.deep.equal(['dir:alpha', 'dir:c', 'dir:Zeta', 'file:A.txt', 'file:b.txt', 'file:digits.txt', 'file:page.html']);
    expect(top).to.include({ path: '.', truncated: false, limit: 50, recursive: false });
    expect(top.hidden).to.deep.equal({ outside_links: 0, blocked: 0, other: 0 });
    const b = top.entries.find((e) => e.name === 'b.txt')!;
    expect(b.size_bytes).to.equal(3);
    expect(b.mtime).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(top.entries.find((e) => e.name === 'c')!.size_bytes).to.equal(null);
    const all = (await g.get(g.bob, ws(bobRun, '/files?recursive=true'))).json<Listing>();
    expect(all.entries.map((e) => e.path)).to.deep.equal(['alpha', 'c', 'Zeta', 'A.txt', 'b.txt', 'digits.txt', 'page.html', 'alpha/deep', 'c/d.txt', 'Zeta/e.txt', 'alpha/deep/f.txt']);
    const sub = (await g.get(g.bob, ws(bobRun, '/files?path=alpha&recursive=true'))).json<Listing>();
    expect(sub.path).to.equal('alpha');
    expect(sub.entries.map((e) => e.path)).to.deep.equal(['alpha/deep', 'alpha/deep/f.txt']);
  });

  it('honours limit (truncated when more was there), caps it at runWorkspace.maxListEntries, refuses limit < 1 and a file as the folder', async () => {
    const two = (await g.get(g.bob, ws(bobRun, '/files?limit=2'))).json<Listing>();
    expect(two.entries.map((e) => e.name)).to.deep.equal(['alpha', 'c']);
    expect(two).to.include({ truncated: true, limit: 2 });
    const exact = (await g.get(g.bob, ws(bobRun, '/files?path=alpha&limit=1'))).json<Listing>();
    expect(exact).to.include({ truncated: false });
    const capped = (await g.get(g.bob, ws(bobRun, '/files?limit=100000'))).json<Listing>();
    expect(capped.limit).to.equal(50);
    expect((await g.get(g.bob, ws(bobRun, '/files?limit=0'))).statusCode).to.equal(400);
    const file = await g.get(g.bob, ws(bobRun, '/files?path=b.txt'));
    expect(file.statusCode).to.equal(400);
    expect(file.body).to.contain('/workspace/content');
    expect((await g.get(g.bob, ws(bobRun, '/files?path=nope'))).statusCode).to.equal(404);
  });

  it('serves content inline with nosniff and a sandbox CSP; an HTML page cannot run on the gateway origin', async () => {
    const res = await g.get(g.bob, ws(bobRun, '/content?path=page.html'));
    expect(res.statusCode).to.equal(200);
    expect(res.body).to.equal('<script>alert(1)</script>');
    expect(res.headers['content-security-policy']).to.equal('sandbox');
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.headers['content-disposition']).to.equal('inline; filename=page.html');
    expect(String(res.headers['content-type'])).to.match(/^text\/html/);
    expect(res.headers['accept-ranges']).to.equal('bytes');
    const folder = await g.get(g.bob, ws(bobRun, '/content?path=c'));
    expect(folder.statusCode).to.equal(400);
    expect(folder.body).to.contain('is a folder; list it with /workspace/files');
    expect((await g.get(g.bob, ws(bobRun, '/content?path=c/d.txt'))).body).to.equal('dee');
    expect((await g.get(g.bob, ws(bobRun, '/content?path=nope.txt'))).statusCode).to.equal(404);
    expect((await g.get(g.bob, ws(bobRun, '/content'))).statusCode).to.equal(400);
  });

  it('answers byte ranges: one (206), suffix and open-ended, outside the file (416), several as multipart/byteranges, too many as the whole file', async () => {
    const range = (r: string) => g.get(g.bob, ws(bobRun, '/content?path=digits.txt'), { range: r });
    const one = await range('bytes=2-4');
    expect(one.statusCode).to.equal(206);
    expect(one.body).to.equal('234');
    expect(one.headers['content-range']).to.equal('bytes 2-4/10');
    expect((await range('bytes=-3')).body).to.equal('789');
    expect((await range('bytes=7-')).body).to.equal('789');
    const clamped = await range('bytes=8-100');
    expect(clamped.headers['content-range']).to.equal('bytes 8-9/10');
    const beyond = await range('bytes=10-20');
    expect(beyond.statusCode).to.equal(416);
    expect(beyond.headers['content-range']).to.equal('bytes */10');
    const several = await range('bytes=0-1,5-6');
    expect(several.statusCode).to.equal(206);
    const type = String(several.headers['content-type']);
    expect(type).to.match(/^multipart\/byteranges; boundary=/);
    const boundary = type.split('boundary=')[1]!;
    expect(Number(several.headers['content-length'])).to.equal(several.rawPayload.length);
    const parts = several.body.split(`--${boundary}`).slice(1, -1).map((p) => p.split('\r\n\r\n'));
    expect(parts.map(([head]) => head!.match(/Content-Range: (.*)/)![1])).to.deep.equal(['bytes 0-1/10', 'bytes 5-6/10']);
    expect(parts.map(([, body]) => body!.replace(/\r\n$/, ''))).to.deep.equal(['01', '56']);
    expect(several.body.endsWith(`--${boundary}--\r\n`)).to.equal(true);
    // Overlapping and adjacent ranges are combined first: these ten are one range.
    const adjacent = await range('bytes=0-0,2-2,4-4,6-6,8-8,1-1,3-3,5-5,7-7,9-9');
    expect(adjacent.statusCode).to.equal(206);
    expect(adjacent.headers['content-range']).to.equal('bytes 0-9/10');
    writeFileSync(path.join(bobFolder, 'long.txt'), 'x'.repeat(100));
    const spread = (n: number) => g.get(g.bob, ws(bobRun, '/content?path=long.txt'), { range: `bytes=${Array.from({ length: n }, (_, i) => `${i * 3}-${i * 3}`).join(',')}` });
    expect((await spread(16)).statusCode, 'runWorkspace.maxRanges (16) ranges').to.equal(206);
    const many = await spread(17);
    expect(many.statusCode, 'more ranges than runWorkspace.maxRanges: the whole file').to.equal(200);
    expect(many.body).to.equal('x'.repeat(100));
  });

  it('hides the marker file (listing, content, a link to it, a hard link to it)', async () => {
    symlinkSync(path.join(bobFolder, '.keel-workspace.json'), path.join(bobFolder, 'marker-link'));
    linkSync(path.join(bobFolder, '.keel-workspace.json'), path.join(bobFolder, 'marker-hard'));
    try {
      const names = (await g.get(g.bob, ws(bobRun, '/files'))).json<Listing>().entries.map((e) => e.name);
      expect(names).to.not.include('.keel-workspace.json').and.not.include('marker-link').and.not.include('marker-hard');
      for (const p of ['.keel-workspace.json', 'marker-link', 'marker-hard']) expect((await g.get(g.bob, ws(bobRun, `/content?path=${p}`))).statusCode, p).to.equal(404);
    } finally {
      execFileSync('rm', ['-f', path.join(bobFolder, 'marker-link'), path.join(bobFolder, 'marker-hard')]);
    }
  });

  it('blocks what the policy refuses, at once: a launch folder row denied by the run, then by the gateway (listing counts it, content 404)', async () => {
    const launch = path.join(outside.dir, 'launch');
    mkdirSync(path.join(launch, 'secret'), { recursive: true });
    mkdirSync(path.join(launch, 'later'), { recursive: true });
    writeFileSync(path.join(launch, 'secret', 's.txt'), 'no');
    writeFileSync(path.join(launch, 'later', 'l.txt'), 'soon no');
    writeFileSync(path.join(launch, 'open.txt'), 'yes');
    const runId = await g.startTools(g.admin, [], { workspace_root: launch, workspace: { posture: 'any_except_denied', default_mode: 'rw', folders: [{ path: path.join(launch, 'secret'), mode: 'deny' }] } });
    await g.waitFor(g.admin, runId, ['completed']);
    const first = (await g.get(g.admin, ws(runId, '/files?recursive=true'))).json<Listing>();
    expect(first.entries.map((e) => e.path)).to.deep.equal(['later', 'open.txt', 'later/l.txt']);
    expect(first.hidden.blocked).to.equal(1);
    expect((await g.get(g.admin, ws(runId, '/content?path=secret/s.txt'))).statusCode).to.equal(404);
    expect((await g.get(g.admin, ws(runId, '/files?path=secret'))).statusCode).to.equal(404);
    const put = await g.k.inject({ method: 'PUT', url: '/api/gateway/workspace/policy', token: g.admin, payload: { folders: [{ path: path.join(launch, 'later'), mode: 'deny' }] } });
    expect(put.statusCode, put.body).to.equal(200);
    try {
      const then = (await g.get(g.admin, ws(runId, '/files?recursive=true'))).json<Listing>();
      expect(then.entries.map((e) => e.path)).to.deep.equal(['open.txt']);
      expect(then.hidden.blocked).to.equal(2);
      expect((await g.get(g.admin, ws(runId, '/content?path=later/l.txt'))).statusCode).to.equal(404);
    } finally {
      await g.k.inject({ method: 'PUT', url: '/api/gateway/workspace/policy', token: g.admin, payload: { folders: [] } });
    }
  });

  it('opens the folder with the configured opener for the admin at the gateway computer only', async () => {
    const adminRun = await g.startTools(g.admin, []);
    const open = (token: string, remoteAddress?: string, headers?: Record<string, string>) => g.k.inject({ method: 'POST', url: ws(adminRun === '' ? bobRun : adminRun, '/open'), token, remoteAddress, headers });
    const bob = await g.k.inject({ method: 'POST', url: ws(bobRun, '/open'), token: g.bob });
    expect(bob.statusCode).to.equal(403);
    expect(bob.body).to.contain('Only an admin sitting at the gateway computer');
    expect((await open(g.admin, '203.0.113.9')).statusCode).to.equal(403);
    expect((await open(g.admin, undefined, { forwarded: 'for=203.0.113.9' })).statusCode).to.equal(403);
    const res = await open(g.admin);
    expect(res.statusCode, res.body).to.equal(200);
    const folder = realpathSync(path.join(g.k.dataDir, 'workspaces', `run-${adminRun}`));
    expect(res.json()).to.deep.equal({ ok: true, opened: true, run_id: adminRun, workspace_root: folder, opener: path.basename(opener) });
    expect(await until(() => readFileSync(openerLog, 'utf8'), (s) => s.length > 0, 30_000)).to.equal(folder);
  });

  it('says clearly when no opener exists (501), and when it fails (500)', async () => {
    const none = await bootWorkspaceGateway({ runWorkspace: { opener: 'keel-no-such-file-manager' } });
    try {
      const runId = await none.startTools(none.admin, []);
      const res = await none.k.inject({ method: 'POST', url: ws(runId, '/open'), token: none.admin });
      expect(res.statusCode).to.equal(501);
      expect(res.json<{ detail: { message: string } }>().detail.message).to.contain('No program to open folders was found on the gateway computer (looked for keel-no-such-file-manager');
    } finally {
      await none.stop();
    }
    const failing = path.join(outside.dir, 'broken-opener.sh');
    writeFileSync(failing, '#!/bin/sh\nexit 3\n');
    chmodSync(failing, 0o755);
    const broken = await bootWorkspaceGateway({ runWorkspace: { opener: failing } });
    try {
      const runId = await broken.startTools(broken.admin, []);
      const res = await broken.k.inject({ method: 'POST', url: ws(runId, '/open'), token: broken.admin });
      expect(res.statusCode).to.equal(500);
      expect(res.json<{ detail: { message: string } }>().detail.message).to.equal('The folder could not be opened: broken-opener.sh failed (exit code 3).');
    } finally {
      await broken.stop();
    }
  });

  it('stops a listing at runWorkspace.maxListScan entries looked at, and a recursive one at runWorkspace.maxListDepth', async () => {
    const small = await bootWorkspaceGateway({ runWorkspace: { maxListScan: 4, maxListDepth: 1 } });
    try {
      const calls = ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => call(n, 'write_file', { path: `${n}.txt`, content: n }));
      const wide = await small.runTools(small.bob, calls);
      const listing = (await small.get(small.bob, ws(wide.runId, '/files'))).json<Listing>();
      expect(listing.truncated).to.equal(true);
      expect(listing.entries.length).to.be.at.most(4);
      const deep = await small.runTools(small.bob, [call('d', 'write_file', { path: 'one/two/three.txt', content: 'x' })]);
      const walked = (await small.get(small.bob, ws(deep.runId, '/files?recursive=true'))).json<Listing>();
      expect(walked.entries.map((e) => e.path)).to.deep.equal(['one', 'one/two']);
    } finally {
      await small.stop();
    }
  });
});

