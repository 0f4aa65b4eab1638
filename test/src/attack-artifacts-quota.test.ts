import { mkdirSync, readdirSync } from 'node:fs';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { artifactsPlugin } from '@keel/plugin-artifacts';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin, workspacesToken } from '@keel/plugin-workspaces';
import { askUserFlow, bundle, multipart } from './helpers/flow-builder.js';
import { form } from './helpers/artifacts.js';

/**
 * Attack (issue 12): the quota of a run's folder (gateway-runs settings workspace.maxFolderEntries,
 * maxFolderBytes, maxPathDepth) holds the file tools; export writes into the same folder, so it must
 * not be a way around it (a non-admin filling the data folder's disk with one upload exported again
 * and again, or a tree thousands of folders deep).
 */
describe('attack: export is held to the run folder quota', function () {
  this.timeout(180_000);
  let k: TestKernel;
  let bob = '';
  let runId = '';
  let artifactId = '';
  let root = '';
  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { workspace: { maxFolderEntries: 5, maxFolderBytes: 4096, maxPathDepth: 3 } } }, artifactsPlugin] });
    const created = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account: 'bob' } });
    bob = created.json<{ token: { token: string } }>().token.token;
    const flow = multipart({}, { name: 'ask.flow', bytes: bundle('ask', '1.0.0', askUserFlow()) });
    expect((await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: bob, payload: flow.payload, headers: flow.headers })).statusCode).to.equal(201);
    const body = form([{ name: 'session_id', value: 'q' }, { name: 'file', filename: 'k.bin', bytes: Buffer.alloc(1000, 1) }]);
    const up = await k.inject({ method: 'POST', url: '/api/gateway/attachments/upload', token: bob, payload: body.payload, headers: body.headers });
    expect(up.statusCode, up.body).to.equal(200);
    artifactId = up.json<{ artifact: { artifact_id: string } }>().artifact.artifact_id;
    const started = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: bob, payload: { bundle_id: 'ask', session_id: 'q', input_data: {} } });
    expect(started.statusCode, started.body).to.equal(200);
    runId = started.json<{ run_id: string }>().run_id;
    const workspaces = k.resolve(workspacesToken);
    root = await workspaces.rootOf(workspaces.recorded(runId)!);
    mkdirSync(root, { recursive: true });
  });
  after(() => k?.stop());

  const exportTo = (body: Record<string, unknown>) => k.inject({ method: 'POST', url: `/api/gateway/runs/${runId}/artifacts/${artifactId}/export`, token: bob, payload: body });

  it('refuses an export that would take the folder past its bytes or entries, and a tree deeper than allowed', async () => {
    const answers: number[] = [];
    for (let i = 0; i < 8; i++) answers.push((await exportTo({ path: `copy-${i}.bin` })).statusCode);
    // 4096 bytes hold four copies of 1000 bytes; every later one is refused with the quota's sentence.
    expect(answers.slice(0, 4)).to.deep.equal([200, 200, 200, 200]);
    expect(answers.slice(4)).to.deep.equal([403, 403, 403, 403]);
    const refused = await exportTo({ path: 'copy-9.bin' });
    expect(refused.json<{ detail: string }>().detail).to.match(/maxFolderBytes/);
    expect(readdirSync(root).filter((n) => n.startsWith('copy-'))).to.have.length(4);
    // Replacing an existing file does not grow the folder: allowed.
    expect((await exportTo({ path: 'copy-0.bin', overwrite: true })).statusCode).to.equal(200);
    const deep = await exportTo({ path: 'a/b/c/d/e/f.bin', create_parent_dirs: true });
    expect(deep.statusCode, deep.body).to.equal(403);
    expect(deep.json<{ detail: string }>().detail).to.match(/maxPathDepth|maxFolderEntries/);
    expect(readdirSync(root)).to.not.include('a');
  });
});
