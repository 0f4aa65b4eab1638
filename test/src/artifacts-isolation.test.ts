import { expect } from 'chai';
import { artifactsGateway, type UploadAnswer } from './helpers/artifacts.js';

/**
 * Accounts never reach each other's artifacts (seed §1, §5: another account's run or session is
 * 404): every artifact route is tried by eve with bob's run ids, session ids and artifact ids.
 */

describe("artifacts: one account never reaches another's", function () {
  this.timeout(180_000);
  const gw = artifactsGateway();
  let upload: UploadAnswer;
  let runId = '';
  let shared: UploadAnswer;
  let elsewhere: UploadAnswer;
  before(async () => {
    await gw.boot();
    upload = await gw.put(gw.bob, 'bob-s1', 'secret.txt', 'bob only');
    shared = await gw.put(gw.bob, 'bob-s2', 'everywhere.txt', 'shared', [{ name: 'tags', value: '{"shared":"user"}' }]);
    elsewhere = await gw.put(gw.bob, 'bob-s2', 'private-s2.txt', 'private to s2');
    runId = await gw.run(gw.bob, { session_id: 'bob-s1' });
  });
  after(() => gw.stop());

  const id = () => upload.artifact.artifact_id;

  it("answers 404 to eve on every route that names bob's run, session or artifact", async () => {
    const urls = [
      `/api/gateway/runs/${runId}/artifacts`,
      `/api/gateway/runs/${runId}/artifacts/${id()}`,
      `/api/gateway/runs/${runId}/artifacts/${id()}/content`,
      '/api/gateway/runs/session_memory_bob-s1/artifacts',
      `/api/gateway/runs/session_memory_bob-s1/artifacts/${id()}`,
      `/api/gateway/runs/session_memory_bob-s1/artifacts/${id()}/content?access_action=download`,
      '/api/gateway/sessions/bob-s1/artifacts',
    ];
    for (const url of urls) {
      const res = await gw.get(gw.eve, url);
      expect(res.statusCode, url).to.equal(404);
      expect(res.body, url).to.not.include('bob only');
    }
    const session = await gw.get(gw.eve, '/api/gateway/sessions/bob-s1/artifacts');
    expect(session.json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('session_not_found');
    const exported = await gw.post(gw.eve, `/api/gateway/runs/${runId}/artifacts/${id()}/export`, { path: 'stolen.txt' });
    expect(exported.statusCode).to.equal(404);
    const imported = await gw.post(gw.eve, '/api/gateway/artifacts/import', { session_id: 'bob-s1', run_id: runId, source: { kind: 'workspace_path', path: 'x.txt' } });
    expect(imported.statusCode).to.equal(404);
  });

  it("keeps eve's own session of the same name apart from bob's", async () => {
    const eves = await gw.put(gw.eve, 'bob-s1', 'eve.txt', 'eve only');
    const list = (await gw.get(gw.eve, '/api/gateway/sessions/bob-s1/artifacts')).json<{ items: Array<{ artifact_id: string }>; total: number }>();
    expect(list.items.map((r) => r.artifact_id)).to.deep.equal([eves.artifact.artifact_id]);
    // bob's artifact id under eve's memory run of the same name: not found.
    expect((await gw.get(gw.eve, `/api/gateway/runs/session_memory_bob-s1/artifacts/${id()}/content`)).statusCode).to.equal(404);
    // bob's list does not show eve's file.
    const bobs = (await gw.get(gw.bob, '/api/gateway/sessions/bob-s1/artifacts')).json<{ items: Array<{ artifact_id: string }> }>();
    expect(bobs.items.map((r) => r.artifact_id)).to.not.include(eves.artifact.artifact_id);
  });

  it('lets the owner and an admin read the run and its session, and applies session scope under a run', async () => {
    const bobs = await gw.get(gw.bob, `/api/gateway/runs/${runId}/artifacts/${id()}/content`);
    expect(bobs.statusCode).to.equal(200);
    expect(bobs.body).to.equal('bob only');
    expect((await gw.get(gw.admin, `/api/gateway/runs/${runId}/artifacts/${id()}/content`)).statusCode).to.equal(200);
    // Another session's private file is not reachable under a run of bob-s1; a shared one is.
    expect((await gw.get(gw.bob, `/api/gateway/runs/${runId}/artifacts/${elsewhere.artifact.artifact_id}/content`)).statusCode).to.equal(404);
    expect((await gw.get(gw.bob, `/api/gateway/runs/${runId}/artifacts/${shared.artifact.artifact_id}/content`)).body).to.equal('shared');
  });

  it('lists a session with its own files and the owner\'s shared ones, never another session\'s private ones', async () => {
    const list = (await gw.get(gw.bob, '/api/gateway/sessions/bob-s1/artifacts')).json<{ items: Array<{ artifact_id: string }>; total: number }>();
    const ids = list.items.map((r) => r.artifact_id);
    expect(ids).to.include(id()).and.include(shared.artifact.artifact_id);
    expect(ids).to.not.include(elsewhere.artifact.artifact_id);
    const memory = (await gw.get(gw.bob, '/api/gateway/runs/session_memory_bob-s2/artifacts')).json<{ items: Array<{ artifact_id: string }> }>();
    expect(memory.items.map((r) => r.artifact_id).sort()).to.deep.equal([shared.artifact.artifact_id, elsewhere.artifact.artifact_id].sort());
    // A session bob has neither runs nor files in: 404.
    expect((await gw.get(gw.bob, '/api/gateway/sessions/never-used/artifacts')).statusCode).to.equal(404);
    // A session with a run and no upload exists, and sees the shared file.
    await gw.run(gw.bob, { session_id: 'runs-only' });
    const runsOnly = (await gw.get(gw.bob, '/api/gateway/sessions/runs-only/artifacts')).json<{ items: Array<{ artifact_id: string }> }>();
    expect(runsOnly.items.map((r) => r.artifact_id)).to.deep.equal([shared.artifact.artifact_id]);
  });

  it('pages a list with limit and offset, newest first', async () => {
    for (const n of [1, 2, 3]) await gw.put(gw.eve, 'paged', `p${n}.txt`, `p${n}`);
    const page = (await gw.get(gw.eve, '/api/gateway/sessions/paged/artifacts?limit=2')).json<{ items: Array<{ filename: string }>; total: number; has_more: boolean; limit: number }>();
    expect(page).to.include({ total: 3, has_more: true, limit: 2 });
    expect(page.items.map((r) => r.filename)).to.deep.equal(['p3.txt', 'p2.txt']);
    const rest = (await gw.get(gw.eve, '/api/gateway/sessions/paged/artifacts?limit=2&offset=2')).json<{ items: Array<{ filename: string }>; has_more: boolean }>();
    expect(rest.items.map((r) => r.filename)).to.deep.equal(['p1.txt']);
    expect(rest.has_more).to.equal(false);
  });
});
