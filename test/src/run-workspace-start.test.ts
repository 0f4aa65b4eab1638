import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { bootWorkspaceGateway, call, type WorkspaceGateway } from './helpers/run-workspace.js';
import { tempDir } from './helpers/paths.js';

/**
 * Run-start enforcement of issue 12 item 2 through `POST /runs/start` (and `/runs/schedule`):
 * `workspace_root`, a one-off `workspace` (top-level moved into input_data), the legacy
 * `workspace_allowed_paths` that may only narrow, `all_except_ignored` refused, and
 * `_gateway_workspace` written by the server. Every refusal is 400 `workspace_refused` in the
 * seed's body and stores nothing.
 */

type Refusal = { detail: { reason: string; message: string; path: string | null } };

describe('run workspace: what a run start may ask for (issue 12 item 2)', function () {
  this.timeout(180_000);
  const outside = tempDir('keel-runws-start-');
  let g: WorkspaceGateway;
  before(async () => {
    g = await bootWorkspaceGateway();
  });
  after(async () => {
    await g?.stop();
    outside.remove();
  });

  const runCount = async (token: string) => (await g.get(token, '/api/gateway/runs?limit=1000')).json<{ items: unknown[] }>().items.length;
  const expectRefused = async (token: string, payload: Record<string, unknown>, path: string | null, message: string | RegExp) => {
    const before = await runCount(token);
    const res = await g.start(token, { bundle_id: 'tools', input_data: { calls: [] }, ...payload });
    expect(res.statusCode, res.body).to.equal(400);
    const detail = res.json<Refusal>().detail;
    expect(detail.reason, res.body).to.equal('workspace_refused');
    expect(detail.path, res.body).to.equal(path);
    if (typeof message === 'string') expect(detail.message).to.contain(message);
    else expect(detail.message).to.match(message);
    expect(await runCount(token), 'nothing stored').to.equal(before);
  };

  it("runs an admin's run in a launch folder: kind launch_folder, its real path recorded, the tools write there", async () => {
    const launch = path.join(outside.dir, 'project');
    mkdirSync(launch);
    const { runId, run, results } = await g.runTools(g.admin, [call('w', 'write_file', { path: 'out.txt', content: 'made here' })], { workspace_root: launch });
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(results.get('w')!.success, results.get('w')!.error ?? '').to.equal(true);
    expect(readFileSync(path.join(launch, 'out.txt'), 'utf8')).to.equal('made here');
    const ws = await g.gatewayWorkspace(g.admin, runId);
    expect(ws).to.include({ kind: 'launch_folder', path: realpathSync(launch), level: 'gateway' });
    expect(ws.summary).to.be.a('string');
    expect(ws).to.not.have.property('layer');
  });

  it('refuses a workspace_root that is missing, relative, a file, or not a string, naming the path', async () => {
    const file = path.join(outside.dir, 'a-file.txt');
    writeFileSync(file, 'x');
    await expectRefused(g.admin, { workspace_root: path.join(outside.dir, 'nope') }, path.join(outside.dir, 'nope'), /workspace_root/);
    await expectRefused(g.admin, { workspace_root: 'relative/dir' }, 'relative/dir', /workspace_root/);
    await expectRefused(g.admin, { workspace_root: file }, file, /workspace_root/);
    const res = await g.start(g.admin, { bundle_id: 'tools', workspace_root: 42 });
    expect(res.statusCode).to.equal(400);
  });

  it('refuses a workspace_root inside the data folder (directly, through a link, or another account\'s conversation folder) but takes the caller\'s own conversation folder', async () => {
    const data = realpathSync(g.k.dataDir);
    await expectRefused(g.admin, { workspace_root: data }, data, "inside the gateway's data directory");
    await expectRefused(g.admin, { workspace_root: path.join(data, 'db') }, path.join(data, 'db'), "inside the gateway's data directory");
    const link = path.join(outside.dir, 'data-link');
    symlinkSync(path.join(data, 'db'), link);
    await expectRefused(g.admin, { workspace_root: link }, link, "inside the gateway's data directory");
    // Eve's conversation folder, and bob's own.
    const eveRun = await g.startTools(g.eve, [], { session_id: 'eve-chat' });
    await g.waitFor(g.eve, eveRun, ['completed']);
    const eveFolder = realpathSync(await g.folderOf(g.eve, eveRun));
    expect(eveFolder.startsWith(path.join(data, 'workspaces', 'session-'))).to.equal(true);
    // To a non-admin, what lies in a protected folder reads as missing (no oracle for the data folder).
    await expectRefused(g.bob, { workspace_root: eveFolder }, eveFolder, /^workspace_root: .* does not exist/);
    await expectRefused(g.admin, { workspace_root: eveFolder }, eveFolder, "your own conversation folder");
    const bobRun = await g.startTools(g.bob, [call('w', 'write_file', { path: 'shared.txt', content: 'from the chat' })], { session_id: 'bob-chat' });
    await g.waitFor(g.bob, bobRun, ['completed']);
    const bobFolder = realpathSync(await g.folderOf(g.bob, bobRun));
    const { runId, results } = await g.runTools(g.bob, [call('r', 'read_file', { path: 'shared.txt' })], { workspace_root: bobFolder });
    expect(results.get('r')!.output).to.equal('from the chat');
    expect(await g.gatewayWorkspace(g.bob, runId)).to.include({ kind: 'session', path: path.relative(data, bobFolder) });
  });

  it("refuses a non-admin's workspace_root outside its own folders, and a protected folder for anyone", async () => {
    const launch = path.join(outside.dir, 'bob-wants');
    mkdirSync(launch);
    await expectRefused(g.bob, { workspace_root: launch }, launch, "is not one of this run's workspaces");
    await expectRefused(g.admin, { workspace_root: '/proc' }, '/proc', 'is protected');
  });

  it('moves a top-level one-off workspace into input_data.workspace and records level run; a bad one-off is refused', async () => {
    const ro = path.join(outside.dir, 'ro-folder');
    mkdirSync(ro);
    writeFileSync(path.join(ro, 'r.txt'), 'read me');
    const workspace = { posture: 'allowed_only', default_mode: 'ro', folders: [{ path: ro, mode: 'ro' }] };
    const { runId, results } = await g.runTools(g.admin, [call('r', 'read_file', { path: path.join(ro, 'r.txt') }), call('w', 'write_file', { path: path.join(ro, 'w.txt'), content: 'x' }), call('o', 'read_file', { path: '/etc/hostname' })], { workspace });
    expect(results.get('r')!.output).to.equal('read me');
    expect(results.get('w')!.success).to.equal(false);
    expect(existsSync(path.join(ro, 'w.txt'))).to.equal(false);
    expect(results.get('o')!.success, 'allowed_only: unlisted is refused').to.equal(false);
    const inputs = (await g.get(g.admin, `/api/gateway/runs/${runId}/input_data`)).json<Record<string, unknown>>();
    expect(inputs.workspace).to.deep.equal(workspace);
    expect(inputs._gateway_workspace).to.include({ level: 'run', kind: 'run' });
    await expectRefused(g.admin, { workspace: { posture: 'everything' } }, null, /posture/);
    await expectRefused(g.admin, { workspace: { posture: 'allowed_only', default_mode: 'rw', folders: [{ path: realpathSync(g.k.dataDir), mode: 'rw' }] } }, realpathSync(g.k.dataDir), /protected|data/);
    await expectRefused(g.admin, { input_data: { calls: [], workspace: { posture: 'allowed_only', default_mode: 'rw', folders: [{ path: 'rel', mode: 'rw' }] } } }, 'rel', /absolute|rel/);
  });

  it('lets workspace_allowed_paths only narrow: an admin run loses unlisted folders, a non-admin run gains nothing', async () => {
    const a = path.join(outside.dir, 'narrow-a');
    const b = path.join(outside.dir, 'narrow-b');
    mkdirSync(a);
    mkdirSync(b);
    writeFileSync(path.join(a, 'x.txt'), 'in a');
    writeFileSync(path.join(b, 'x.txt'), 'in b');
    const calls = [call('a', 'read_file', { path: path.join(a, 'x.txt') }), call('b', 'read_file', { path: path.join(b, 'x.txt') }), call('own', 'write_file', { path: 'mine.txt', content: 'ok' })];
    const wide = await g.runTools(g.admin, calls);
    expect(wide.results.get('b')!.output, 'without the list the admin reaches b').to.equal('in b');
    const narrowed = await g.runTools(g.admin, calls, { workspace_allowed_paths: [a] });
    expect(narrowed.results.get('a')!.output).to.equal('in a');
    expect(narrowed.results.get('b')!.success).to.equal(false);
    expect(narrowed.results.get('own')!.success, 'the run folder stays writable').to.equal(true);
    const bob = await g.runTools(g.bob, [call('a', 'read_file', { path: path.join(a, 'x.txt') }), call('p', 'read_file', { path: '/etc/passwd' })], { workspace_allowed_paths: [a, '/etc'] });
    expect(bob.results.get('a')!.success, 'a list cannot widen').to.equal(false);
    expect(bob.results.get('p')!.success).to.equal(false);
    expect((await g.gatewayWorkspace(g.bob, bob.runId)).clamped).to.have.length(2);
  });

  it("refuses a client's workspace_access_mode all_except_ignored (start and schedule), and replaces a client's _gateway_workspace", async () => {
    await expectRefused(g.bob, { workspace_access_mode: 'all_except_ignored' }, null, 'all_except_ignored is not accepted');
    await expectRefused(g.admin, { workspace_access_mode: 'all_except_ignored' }, null, 'all_except_ignored is not accepted');
    const scheduled = await g.k.inject({ method: 'POST', url: '/api/gateway/runs/schedule', token: g.bob, payload: { bundle_id: 'tools', start_at: 'now', workspace_access_mode: 'all_except_ignored' } });
    expect(scheduled.statusCode, scheduled.body).to.equal(400);
    expect(scheduled.json<Refusal>().detail.reason).to.equal('workspace_refused');
    const forged = { level: 'gateway', summary: 'Allow everything', kind: 'launch_folder', path: '/' };
    const { runId, results } = await g.runTools(g.bob, [call('p', 'read_file', { path: '/etc/passwd' })], { input_data: { _gateway_workspace: forged } });
    expect(results.get('p')!.success).to.equal(false);
    const ws = await g.gatewayWorkspace(g.bob, runId);
    expect(ws).to.include({ kind: 'run', level: 'account' });
    expect(ws.path).to.equal(`workspaces/run-${runId}`);
  });

  it('refuses a workspace_root outside the effective set on /runs/schedule too', async () => {
    const res = await g.k.inject({ method: 'POST', url: '/api/gateway/runs/schedule', token: g.bob, payload: { bundle_id: 'tools', start_at: 'now', workspace_root: outside.dir } });
    expect(res.statusCode, res.body).to.equal(400);
    expect(res.json<Refusal>().detail).to.include({ reason: 'workspace_refused', path: outside.dir });
  });

  it('leaves no workspace folder behind when a start is refused for too many active runs (429)', async () => {
    const capped = await bootWorkspaceGateway({ limits: { maxActiveRunsPerAccount: 1 } });
    try {
      const waiting = await capped.startTools(capped.bob, [], {}, true);
      await capped.waitFor(capped.bob, waiting, ['waiting']);
      const folders = () => readdirSync(path.join(capped.k.dataDir, 'workspaces')).sort();
      const before = folders();
      const refused = await capped.start(capped.bob, { bundle_id: 'tools', input_data: { calls: [] } });
      expect(refused.statusCode, refused.body).to.equal(429);
      const inSession = await capped.start(capped.bob, { bundle_id: 'tools', session_id: 'never-made', input_data: { calls: [] } });
      expect(inSession.statusCode).to.equal(429);
      expect(folders()).to.deep.equal(before);
    } finally {
      await capped.stop();
    }
  });
});
