import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { workspacesToken } from '@keel/plugin-workspaces';
import { artifactsGateway, type UploadAnswer } from './helpers/artifacts.js';
import { until } from './helpers/until.js';

/**
 * Attack (issue 12): "the data folder's place is never told to a non-admin". An admin lists one of
 * bob's conversation folders in his account level (bob sees it as `workspaces/session-…`); bob then
 * names it relative to another session's folder (`../session-…/x`) and reads back where the file
 * is from the answers of export, import and the produced-file record.
 */
describe("attack: the data folder's place through export, import and produced files", function () {
  this.timeout(180_000);
  const gw = artifactsGateway();
  let upload: UploadAnswer;
  let other = '';
  let runId = '';
  let dataDir = '';
  before(async () => {
    await gw.boot();
    dataDir = gw.k.dataDir;
    const workspaces = gw.k.resolve(workspacesToken);
    const first = await gw.run(gw.bob, { session_id: 's1' });
    const s1 = await workspaces.rootOf(workspaces.recorded(first)!);
    other = path.basename(s1);
    const put = await gw.k.inject({ method: 'PUT', url: '/api/gateway/workspace/policy/bob', token: gw.admin, payload: { posture: 'allowed_only', default_mode: 'rw', folders: [{ path: s1, mode: 'rw' }] } });
    expect(put.statusCode, put.body).to.equal(200);
    // What bob is told of his level names it relative to the data folder.
    const mine = await gw.get(gw.bob, '/api/gateway/workspace/policy/me');
    expect(mine.body).to.not.include(dataDir);
    upload = await gw.put(gw.bob, 's2', 'note.txt', 'a note');
    runId = await gw.run(gw.bob, { session_id: 's2' });
  });
  after(() => gw.stop());

  it('export answers a path in the data folder relative to it (workspaces/session-…), never its real path', async () => {
    const res = await gw.post(gw.bob, `/api/gateway/runs/${runId}/artifacts/${upload.artifact.artifact_id}/export`, { path: `../${other}/exported.txt` });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.body).to.not.include(dataDir);
    expect(res.json<{ path: string }>().path).to.equal(`workspaces/${other}/exported.txt`);
  });

  it('import records the path without the data folder', async () => {
    const res = await gw.post(gw.bob, '/api/gateway/artifacts/import', { session_id: 's2', source: { kind: 'workspace_path', path: `../${other}/exported.txt` } });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.body).to.not.include(dataDir);
    const listed = await gw.get(gw.bob, '/api/gateway/sessions/s2/artifacts');
    expect(listed.body).to.not.include(dataDir);
  });

  it("neither export nor a run's write_file replaces the ownership marker of another of bob's folders", async () => {
    const exported = await gw.post(gw.bob, `/api/gateway/runs/${runId}/artifacts/${upload.artifact.artifact_id}/export`, { path: `../${other}/.keel-workspace.json`, overwrite: true });
    expect(exported.statusCode, exported.body).to.equal(403);
    const writer = await gw.run(gw.bob, { bundle: 'tools', session_id: 's4', input_data: { calls: [{ call_id: 'w', name: 'write_file', arguments: { path: `../${other}/.keel-workspace.json`, content: '{"account": "eve"}' } }] } });
    const run = await gw.finished(gw.bob, writer);
    const results = (run.output?.results ?? []) as Array<{ success: boolean; error: string | null }>;
    expect(results[0]).to.deep.include({ success: false });
    expect(results[0]!.error).to.match(/cannot be changed/);
    const marker = JSON.parse(readFileSync(path.join(dataDir, 'workspaces', other, '.keel-workspace.json'), 'utf8')) as { account: string };
    expect(marker.account).to.equal('bob');
  });

  it("a file a run writes in another of bob's folders is recorded without the data folder", async () => {
    const writer = await gw.run(gw.bob, { bundle: 'tools', session_id: 's3', input_data: { calls: [{ call_id: 'w', name: 'write_file', arguments: { path: `../${other}/written.txt`, content: 'written' } }] } });
    const run = await gw.finished(gw.bob, writer);
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(JSON.stringify(run.output)).to.match(/Wrote 7 bytes/);
    const listed = await until(async () => gw.get(gw.bob, `/api/gateway/runs/${writer}/artifacts`), { what: 'the produced file', ok: (r) => r.json<{ items: unknown[] }>().items.length > 0, deadline: 60_000 });
    expect(listed.body).to.not.include(dataDir);
  });
});
