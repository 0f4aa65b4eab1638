import { linkSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { workspacesToken } from '@keel/plugin-workspaces';
import { artifactsGateway, type UploadAnswer } from './helpers/artifacts.js';
import { tempDir } from './helpers/paths.js';

/**
 * Attacks on export, import and the start check by a hostile non-admin (issue 12): each test is a
 * way around a rule that once worked.
 */
describe('attack: artifacts import, export and start references', function () {
  this.timeout(180_000);
  const gw = artifactsGateway();
  const outside = tempDir('keel-attack-outside-');
  let upload: UploadAnswer;
  let runId = '';
  let root = '';
  before(async () => {
    await gw.boot();
    upload = await gw.put(gw.bob, 'atk', 'report.txt', 'the report');
    runId = await gw.run(gw.bob, { session_id: 'atk' });
    const workspaces = gw.k.resolve(workspacesToken);
    root = await workspaces.rootOf(workspaces.recorded(runId)!);
  });
  after(async () => {
    await gw.stop();
    outside.remove();
  });

  const exportTo = (body: Record<string, unknown>) => gw.post(gw.bob, `/api/gateway/runs/${runId}/artifacts/${upload.artifact.artifact_id}/export`, body);
  const importFrom = (body: Record<string, unknown>) => gw.post(gw.bob, '/api/gateway/artifacts/import', { session_id: 'atk', ...body });

  it('import refuses a file with another name (a hard link) outside the workspace, as the file tools and the content route do', async () => {
    // A second name of a file the policy refuses, planted in the run's folder (same file system).
    const secret = path.join(path.dirname(root), 'keel-attack-secret.txt');
    writeFileSync(secret, 'not yours');
    try {
      linkSync(secret, path.join(root, 'hard.txt'));
      const res = await importFrom({ source: { kind: 'workspace_path', path: 'hard.txt' } });
      expect(res.statusCode, res.body).to.equal(403);
      expect(res.body).to.not.include('not yours');
      expect(res.json<{ detail: string }>().detail).to.match(/hard link/);
    } finally {
      writeFileSync(secret, '');
    }
  });

  it('export and import answer a name longer than the file system allows with 400, not 500', async () => {
    const long = 'n'.repeat(300);
    for (const body of [{ path: `${long}.txt` }, { path: `${long}/x.txt`, create_parent_dirs: true }, { path: `d/${long}.txt`, create_parent_dirs: true }]) {
      const res = await exportTo(body);
      expect(res.statusCode, `${JSON.stringify(body).slice(0, 60)}: ${res.body}`).to.equal(400);
    }
    for (const p of [`${long}.txt`, `${long}/x.txt`]) {
      const res = await importFrom({ source: { kind: 'workspace_path', path: p } });
      expect(res.statusCode, `${p.slice(0, 20)}: ${res.body}`).to.be.oneOf([400, 404]);
    }
  });

  it('export and import answer a path with a NUL or other control characters with 400, not 500', async () => {
    for (const p of ['a\u0000b.txt', 'dir\u0000/x.txt', '\u0000']) {
      const exported = await exportTo({ path: p, create_parent_dirs: true });
      expect(exported.statusCode, `export ${JSON.stringify(p)}: ${exported.body}`).to.be.oneOf([400, 403, 404]);
      const imported = await importFrom({ source: { kind: 'workspace_path', path: p } });
      expect(imported.statusCode, `import ${JSON.stringify(p)}: ${imported.body}`).to.be.oneOf([400, 403, 404]);
    }
  });

  it("export never replaces the folder's ownership marker (the file tools may not change it either)", async () => {
    const marker = path.join(root, '.keel-workspace.json');
    const before = readFileSync(marker, 'utf8');
    for (const p of ['.keel-workspace.json', './.keel-workspace.json', marker, 'sub/../.keel-workspace.json']) {
      const res = await exportTo({ path: p, overwrite: true });
      expect(res.statusCode, `${p}: ${res.body}`).to.equal(403);
    }
    expect(readFileSync(marker, 'utf8')).to.equal(before);
  });

  it('a start reference cannot hide a foreign artifact_id behind an unknown $artifact', async () => {
    for (const ref of [
      { $artifact: 'no-such-artifact', artifact_id: upload.artifact.artifact_id },
      { $artifact: upload.artifact.artifact_id, artifact_id: 'no-such-artifact' },
    ]) {
      const res = await gw.start(gw.bob, { session_id: 'atk-other', input_data: { context: { attachments: [ref] } } });
      expect(res.statusCode, res.body).to.equal(400);
      expect(res.json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('artifact_not_in_session');
    }
  });
});
