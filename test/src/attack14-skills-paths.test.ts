/**
 * Attack on issue 14 item 4 (skills): `GET /skills` hides the shelf's path from a non-admin
 * (`shelf: null, shelf_hidden: true`, "it lies in the data dir"), but the same path came back to
 * that non-admin in `reason` ("the saved skills.shelf is not usable: <data>/… has no skills/
 * folder"), in the run's `skills_resolution` verdicts on `GET /runs/{id}` ("#FALLBACK no curated
 * shelf found (<reason>)") and in `read_skill`'s refusal. A non-admin now reads `<data>` where the
 * data directory's path was (an admin still sees it whole).
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { edges, node } from './helpers/flow-builder.js';
import { until } from './helpers/gateway-runs.js';
import { skillsKernel, withShelfEnv } from './helpers/skills.js';

const echoFlow = {
  id: 'echo',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }), node({ id: 'end', type: 'on_flow_end', inputs: ['prompt'] })],
  edges: edges('start -> end', 'start.prompt -> end.prompt'),
};

describe('attack14: the skills shelf path stays hidden from a non-admin', function () {
  this.timeout(300_000);
  let k: TestKernel;
  let user = '';
  let shelf = '';
  before(async () => {
    k = await skillsKernel();
    user = await createAccount(k, 'shelf-peeker');
    await uploadBundleAs(k, user, 'echo', echoFlow);
    shelf = path.join(k.dataDir, 'operator-shelf');
    mkdirSync(path.join(shelf, 'skills'), { recursive: true });
    const saved = await k.inject({ method: 'PUT', url: '/api/gateway/admin/runtime-config', token: k.adminToken, payload: { values: { 'skills.shelf': shelf } } });
    expect(saved.statusCode, saved.body).to.equal(200);
    // The saved shelf loses its skills/ folder: the shelf is unavailable, with a reason naming the path.
    rmSync(path.join(shelf, 'skills'), { recursive: true });
  });
  after(() => k?.stop());

  it('GET /skills: the admin reads the path in reason, a non-admin reads <data> instead', async () => {
    const admin = await withShelfEnv(null, () => k.inject({ url: '/api/gateway/skills', token: k.adminToken }));
    expect(admin.json<{ reason: string }>().reason).to.include(k.dataDir);
    const res = await withShelfEnv(null, () => k.inject({ url: '/api/gateway/skills', token: user }));
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.body).to.not.include(k.dataDir);
    const body = res.json<{ reason: string; available: boolean; shelf: null }>();
    expect(body.available).to.equal(false);
    expect(body.shelf).to.equal(null);
    expect(body.reason).to.include('<data>/operator-shelf has no skills/ folder');
  });

  it("a non-admin's run: skills_resolution on GET /runs/{id} never names the data directory", async () => {
    const started = await withShelfEnv(null, () => k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: user, payload: { bundle_id: 'echo', input_data: { prompt: 'hi', skills: ['keel-runs'] } } }));
    expect(started.statusCode, started.body).to.equal(200);
    const id = started.json<{ run_id: string }>().run_id;
    const run = await until(() => k.inject({ url: `/api/gateway/runs/${id}`, token: user }), { what: `run ${id} to end`, ok: (r) => ['completed', 'failed'].includes(r.json<{ status: string }>().status), deadline: 120_000 });
    const resolution = run.json<{ skills_resolution: { verdicts: string[] } }>().skills_resolution;
    expect(resolution.verdicts.join('\n')).to.include('#FALLBACK no curated shelf found');
    expect(run.body).to.not.include(k.dataDir);
  });
});
