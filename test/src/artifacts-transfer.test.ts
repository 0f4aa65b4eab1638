import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { workspacesToken } from '@keel/plugin-workspaces';
import { artifactsGateway, type UploadAnswer } from './helpers/artifacts.js';
import { tempDir } from './helpers/paths.js';

/**
 * Export to and import from a workspace (seed §4.6, §5; reference §2.4), both through the workspace
 * policy: a non-admin run reaches only its own folder (the default account level), so every way out
 * (absolute paths, `..`, links, the data folder) is refused with the policy's sentence, and nothing is
 * written or read there.
 */

const sha = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('artifacts: export and import through the workspace policy', function () {
  this.timeout(180_000);
  const gw = artifactsGateway({}, { maxAttachmentBytes: 1024 });
  const outside = tempDir('keel-art-outside-');
  let upload: UploadAnswer;
  let runId = '';
  let root = '';
  before(async () => {
    await gw.boot();
    upload = await gw.put(gw.bob, 'xfer', 'report.txt', 'the report');
    runId = await gw.run(gw.bob, { session_id: 'xfer' });
    // The run's folder, as the workspace policy recorded it at the start.
    const workspaces = gw.k.resolve(workspacesToken);
    root = await workspaces.rootOf(workspaces.recorded(runId)!);
    mkdirSync(root, { recursive: true });
  });
  after(async () => {
    await gw.stop();
    outside.remove();
  });

  const exportTo = (body: Record<string, unknown>, token = gw.bob, run = runId, id = upload.artifact.artifact_id) => gw.post(token, `/api/gateway/runs/${run}/artifacts/${id}/export`, body);
  const importFrom = (body: Record<string, unknown>, token = gw.bob) => gw.post(token, '/api/gateway/artifacts/import', { session_id: 'xfer', ...body });
  const why = (res: { json<T>(): T }) => {
    const { detail } = res.json<{ detail: string | { message: string } }>();
    return typeof detail === 'string' ? detail : detail.message;
  };

  it('exports into the run workspace, making parent folders only when asked', async () => {
    const missing = await exportTo({ path: 'out/deep/report.txt' });
    expect(missing.statusCode, missing.body).to.equal(404);
    expect(why(missing)).to.match(/create_parent_dirs=true/);
    const made = await exportTo({ path: 'out/deep/report.txt', create_parent_dirs: true });
    expect(made.statusCode, made.body).to.equal(200);
    expect(made.json()).to.deep.include({ ok: true, artifact_id: upload.artifact.artifact_id, path: 'out/deep/report.txt', bytes_written: 10, content_type: 'text/plain', sha256: sha('the report') });
    expect(readFileSync(path.join(root, 'out/deep/report.txt'), 'utf8')).to.equal('the report');
    // An absolute path inside the run's folder is the same place; the answer names it relative to the root.
    const absolute = await exportTo({ path: path.join(root, 'abs.txt') });
    expect(absolute.statusCode, absolute.body).to.equal(200);
    expect(absolute.json<{ path: string }>().path).to.equal('abs.txt');
  });

  it('never replaces a file without overwrite, and never writes over a folder', async () => {
    writeFileSync(path.join(root, 'taken.txt'), 'mine');
    const refused = await exportTo({ path: 'taken.txt' });
    expect(refused.statusCode).to.equal(409);
    expect(why(refused)).to.equal('Destination already exists; set overwrite=true to replace it');
    expect(readFileSync(path.join(root, 'taken.txt'), 'utf8')).to.equal('mine');
    expect((await exportTo({ path: 'taken.txt', overwrite: true })).statusCode).to.equal(200);
    expect(readFileSync(path.join(root, 'taken.txt'), 'utf8')).to.equal('the report');
    mkdirSync(path.join(root, 'a-folder'), { recursive: true });
    expect((await exportTo({ path: 'a-folder', overwrite: true })).statusCode).to.equal(400);
    expect((await exportTo({})).statusCode).to.equal(400);
  });

  it('refuses every way out of the run workspace and writes nothing there', async () => {
    symlinkSync(outside.dir, path.join(root, 'link-out'));
    const attempts = [
      path.join(outside.dir, 'abs.txt'),
      '../escape.txt',
      `../${path.basename(root)}/../escape2.txt`,
      'link-out/through-link.txt',
      'link-out/new-folder/deeper/x.txt',
      path.join(gw.k.dataDir, 'stolen.txt'),
      path.join(gw.k.dataDir, 'auth', 'x.txt'),
      '/etc/keel-art.txt',
    ];
    for (const target of attempts) {
      for (const body of [{ path: target }, { path: target, create_parent_dirs: true, overwrite: true }]) {
        const res = await exportTo(body);
        expect(res.statusCode, `${target}: ${res.body}`).to.equal(403);
        expect(why(res).length, target).to.be.greaterThan(10);
      }
    }
    expect(existsSync(path.join(outside.dir, 'abs.txt'))).to.equal(false);
    expect(existsSync(path.join(outside.dir, 'through-link.txt'))).to.equal(false);
    expect(existsSync(path.join(outside.dir, 'new-folder'))).to.equal(false);
    expect(existsSync(path.join(path.dirname(root), 'escape.txt'))).to.equal(false);
    expect(existsSync(path.join(gw.k.dataDir, 'stolen.txt'))).to.equal(false);
  });

  it('refuses an export through a session memory run (it has no workspace)', async () => {
    const res = await exportTo({ path: 'x.txt' }, gw.bob, 'session_memory_xfer');
    expect(res.statusCode).to.equal(400);
    expect(why(res)).to.match(/has no workspace/);
  });

  it('imports a workspace file into the session, with or without naming the run', async () => {
    writeFileSync(path.join(root, 'in.txt'), 'imported bytes');
    for (const body of [{ run_id: runId, source: { kind: 'workspace_path', path: 'in.txt' }, pin_id: 'pin-1' }, { source: { kind: 'workspace_path', path: 'in.txt' } }]) {
      const res = await importFrom(body);
      expect(res.statusCode, res.body).to.equal(200);
      const answer = res.json<UploadAnswer>();
      expect(answer.artifact).to.include({ filename: 'in.txt', content_type: 'text/plain', sha256: sha('imported bytes'), target: 'server', run_id: 'session_memory_xfer' });
      expect(answer.metadata.tags).to.include({ kind: 'run_input', source: 'workspace', purpose: 'run_input' });
      const bytes = await gw.get(gw.bob, `/api/gateway/runs/${runId}/artifacts/${answer.artifact.artifact_id}/content`);
      expect(bytes.body).to.equal('imported bytes');
    }
    const pinned = (await importFrom({ source: { kind: 'path', path: 'in.txt' }, pin_id: 'p9' })).json<UploadAnswer>();
    expect(pinned.metadata.tags.pin_id).to.equal('p9');
  });

  it('refuses imports from outside, through links, of non-files, of missing and of too large files', async () => {
    writeFileSync(path.join(outside.dir, 'secret.txt'), 'not yours');
    symlinkSync(path.join(outside.dir, 'secret.txt'), path.join(root, 'secret-link.txt'));
    for (const source of [path.join(outside.dir, 'secret.txt'), '../secret.txt', 'secret-link.txt', 'link-out/secret.txt', '/etc/passwd', path.join(gw.k.dataDir, 'auth', 'admin.token')]) {
      const res = await importFrom({ source: { kind: 'workspace_path', path: source } });
      expect(res.statusCode, `${source}: ${res.body}`).to.equal(403);
      expect(res.body).to.not.include('not yours');
    }
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    expect((await importFrom({ source: { kind: 'workspace_path', path: 'pipe' } })).statusCode).to.equal(400);
    expect((await importFrom({ source: { kind: 'workspace_path', path: 'a-folder' } })).statusCode).to.equal(400);
    expect((await importFrom({ source: { kind: 'workspace_path', path: 'nothing-here.txt' } })).statusCode).to.equal(404);
    writeFileSync(path.join(root, 'big.bin'), Buffer.alloc(1025));
    const big = await importFrom({ source: { kind: 'workspace_path', path: 'big.bin' } });
    expect(big.statusCode).to.equal(413);
    expect(why(big)).to.match(/^Artifact too large \(1025 bytes > 1024 bytes\)/);
    expect((await importFrom({ source: { kind: 'url', path: 'in.txt' } })).statusCode).to.equal(400);
    expect((await importFrom({ source: { kind: 'workspace_path' } })).statusCode).to.equal(400);
  });
});

describe('artifacts: export and import in hosted mode', function () {
  this.timeout(180_000);
  const gw = artifactsGateway({ hostedUserAuth: true });
  before(() => gw.boot());
  after(() => gw.stop());

  it('lets only an admin move files between the server and artifacts', async () => {
    const bobs = await gw.put(gw.bob, 'h', 'a.txt', 'a');
    const bobRun = await gw.run(gw.bob, { session_id: 'h' });
    const exported = await gw.post(gw.bob, `/api/gateway/runs/${bobRun}/artifacts/${bobs.artifact.artifact_id}/export`, { path: 'a.txt' });
    expect(exported.statusCode).to.equal(403);
    const imported = await gw.post(gw.bob, '/api/gateway/artifacts/import', { session_id: 'h', source: { kind: 'workspace_path', path: 'a.txt' } });
    expect(imported.statusCode).to.equal(403);
    const admins = await gw.put(gw.admin, 'h', 'b.txt', 'b');
    const adminRun = await gw.run(gw.admin, { session_id: 'h' });
    const ok = await gw.post(gw.admin, `/api/gateway/runs/${adminRun}/artifacts/${admins.artifact.artifact_id}/export`, { path: 'b.txt' });
    expect(ok.statusCode, ok.body).to.equal(200);
  });
});
