import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { bundle, multipart, toolCallsFlow, toolsAfterAskFlow } from './helpers/flow-builder.js';
import { until, type RunRecord } from './helpers/gateway-runs.js';
import { tempDir } from './helpers/paths.js';

/**
 * The workspace policy applied to runs (seed §4.5, reference gateway-surfaces §1.2–1.6): resolution
 * one-off → session → account → gateway, exactly one layer combined with the gateway caps, clamps of
 * stored layers, nesting, conversation folders, and the checks of the file tools on real paths,
 * with the CURRENT gateway level. Every call goes through the front door (policy PUTs, run start,
 * commands, the run record, input_data).
 */

type ToolResult = { call_id: string; name: string; success: boolean; output: string | null; error: string | null };
type Call = { name: string; arguments: Record<string, unknown>; call_id: string };
type GatewayWorkspace = { level: string; summary: string; kind: string; path: string; clamped?: Array<{ path: string; asked: string; got: string | null; sentence: string }> };

const TERMINAL = ['completed', 'failed', 'cancelled'];
const DOT = ' \u00b7 ';
const call = (call_id: string, name: string, args: Record<string, unknown>): Call => ({ call_id, name, arguments: args });


describe('workspaces: the policy levels applied to runs and their file tools', function () {
  this.timeout(180_000);
  const tmp = tempDir('keel-wsr-');
  const work = path.join(tmp.dir, 'work');
  const other = path.join(tmp.dir, 'other');
  const nest = path.join(tmp.dir, 'nest');
  let k: TestKernel;
  let bob = '';
  let carol = '';
  let data = '';

  const put = async (url: string, token: string, body: unknown) => {
    const res = await k.inject({ method: 'PUT', url, token, payload: body });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<Record<string, unknown>>();
  };
  const getRun = async (token: string, id: string) => (await k.inject({ url: `/api/gateway/runs/${id}`, token })).json<RunRecord>();
  const workspaceOf = async (token: string, id: string) => (await k.inject({ url: `/api/gateway/runs/${id}/input_data`, token })).json<{ _gateway_workspace: GatewayWorkspace }>()._gateway_workspace;

  /** Runs `calls` with `token`'s own bundle; `whileWaiting` runs while the run waits before its tools. */
  async function run(token: string, calls: Call[], extra: Record<string, unknown> = {}, whileWaiting?: (runId: string) => Promise<void>) {
    const who = token === bob ? 'bob' : token === carol ? 'carol' : 'admin';
    const { input_data: inputExtra, ...bodyExtra } = extra as { input_data?: Record<string, unknown> };
    const started = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token, payload: { bundle_id: whileWaiting ? `${who}-tools-ask` : `${who}-tools`, input_data: { calls, ...inputExtra }, ...bodyExtra } });
    expect(started.statusCode, started.body).to.equal(200);
    const runId = started.json<{ run_id: string }>().run_id;
    if (whileWaiting) {
      await until(() => getRun(token, runId), (r) => r.status === 'waiting', 60_000);
      await whileWaiting(runId);
      const resumed = await k.inject({ method: 'POST', url: '/api/gateway/commands', token, payload: { command_id: randomBytes(8).toString('hex'), run_id: runId, type: 'resume', payload: { payload: { response: 'go' } } } });
      expect(resumed.statusCode).to.equal(200);
    }
    const done = await until(() => getRun(token, runId), (r) => TERMINAL.includes(r.status), 60_000);
    expect(done.status, done.error ?? '').to.equal('completed');
    const results = new Map(((done.output?.results ?? []) as ToolResult[]).map((r) => [r.call_id, r]));
    return { runId, results, workspace: await workspaceOf(token, runId) };
  }

  before(async () => {
    for (const d of [work, other, path.join(nest, 'deny', 'open')]) mkdirSync(d, { recursive: true });
    writeFileSync(path.join(work, 'readme.txt'), 'work');
    writeFileSync(path.join(nest, 'deny', 'secret.txt'), 'secret');
    writeFileSync(path.join(nest, 'deny', 'open', 'open.txt'), 'open');
    symlinkSync(path.join(nest, 'deny', 'secret.txt'), path.join(nest, 'link-to-secret'));
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    data = realpathSync(k.dataDir);
    for (const name of ['bob', 'carol']) {
      const created = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account: name } });
      expect(created.statusCode).to.equal(201);
      if (name === 'bob') bob = created.json<{ token: { token: string } }>().token.token;
      else carol = created.json<{ token: { token: string } }>().token.token;
    }
    for (const [token, who] of [[k.adminToken, 'admin'], [bob, 'bob'], [carol, 'carol']] as const) {
      for (const [id, flow] of [[`${who}-tools`, toolCallsFlow()], [`${who}-tools-ask`, toolsAfterAskFlow()]] as const) {
        const body = multipart({}, { name: `${id}.flow`, bytes: bundle(id, '1.0.0', flow) });
        const res = await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token, payload: body.payload, headers: body.headers });
        expect(res.statusCode, res.body).to.equal(201);
      }
    }
  });
  after(async () => {
    await k?.stop();
    tmp.remove();
  });

  it("gives a non-admin's run only its own folder by default (the account level), and an admin-set account level opens more", async () => {
    const target = path.join(work, 'bob.txt');
    let r = await run(bob, [call('w', 'write_file', { path: target, content: 'bob' }), call('own', 'write_file', { path: 'mine.txt', content: 'x' })]);
    expect(r.results.get('w')!.error).to.equal(`${target} is not one of this run's workspaces (Deny everything, allow listed workspaces). Runs of a non-admin account reach only their own workspace folder until an admin sets the account's workspace policy (PUT /api/gateway/workspace/policy/{account}; workspaces setting nonAdmin).`);
    expect(r.results.get('own')!.success).to.equal(true);
    expect(r.workspace).to.deep.equal({ level: 'account', summary: 'Deny everything, allow listed workspaces', kind: 'run', path: `workspaces/run-${r.runId}` });
    await put('/api/gateway/workspace/policy/bob', k.adminToken, { posture: 'allowed_only', folders: [{ path: work, mode: 'rw' }] });
    r = await run(bob, [call('w', 'write_file', { path: target, content: 'bob' }), call('o', 'read_file', { path: path.join(other, 'x') })]);
    expect(r.results.get('w')).to.deep.include({ success: true });
    expect(readFileSync(target, 'utf8')).to.equal('bob');
    expect(r.results.get('o')!.error).to.match(/is not one of this run's workspaces \(Deny everything, allow listed workspaces · .*work \(rw\)\)\.$/);
    expect(r.workspace).to.deep.include({ level: 'account', summary: `Deny everything, allow listed workspaces${DOT}${realpathSync(work)} (rw)` });
    // carol keeps the default: the account level is per account.
    const c = await run(carol, [call('w', 'read_file', { path: target })]);
    expect(c.results.get('w')!.success).to.equal(false);
  });

  it("lets a session's level win over the account's; the session's runs share its conversation folder with an ownership marker", async () => {
    await put('/api/gateway/sessions/conv/workspaces', bob, { posture: 'allowed_only', folders: [{ path: work, mode: 'ro' }] });
    const first = await run(bob, [call('r', 'read_file', { path: path.join(work, 'readme.txt') }), call('w', 'write_file', { path: path.join(work, 'no.txt'), content: 'x' }), call('n', 'write_file', { path: 'notes.txt', content: 'shared' })], { session_id: 'conv' });
    expect(first.results.get('r')).to.deep.include({ success: true, output: 'work' });
    expect(first.results.get('w')!.error).to.equal(`This run may only read ${path.join(work, 'no.txt')} (Deny everything, allow listed workspaces${DOT}${realpathSync(work)} (ro)).`);
    expect(existsSync(path.join(work, 'no.txt'))).to.equal(false);
    expect(first.workspace).to.deep.include({ level: 'session', kind: 'session' });
    expect(first.workspace.path).to.match(/^workspaces\/session-[0-9a-f]{32}$/);
    const marker = JSON.parse(readFileSync(path.join(data, first.workspace.path, '.keel-workspace.json'), 'utf8')) as Record<string, unknown>;
    expect(marker).to.deep.include({ kind: 'session', account: 'bob', session_id: 'conv' });
    const second = await run(bob, [call('n', 'read_file', { path: 'notes.txt' })], { session_id: 'conv' });
    expect(second.workspace.path).to.equal(first.workspace.path);
    expect(second.results.get('n')).to.deep.include({ success: true, output: 'shared' });
    // carol's session of the same id is another folder, and cannot reach bob's.
    const c = await run(carol, [call('n', 'read_file', { path: path.join(data, first.workspace.path, 'notes.txt') })], { session_id: 'conv' });
    expect(c.workspace.path).to.not.equal(first.workspace.path);
    expect(c.results.get('n')!.success).to.equal(false);
    // The same sentence as any path outside carol's folders: nothing says the path is the data folder.
    expect(c.results.get('n')!.error).to.contain("is not one of this run's workspaces").and.not.contain('protected');
  });

  it('lets a one-off workspace win over the session (level run), within the account level', async () => {
    // The session says work is read-only; this run's one-off says read & write; bob's account level allows rw there.
    const r = await run(bob, [call('w', 'write_file', { path: path.join(work, 'one-off.txt'), content: '1' })], { session_id: 'conv', input_data: { workspace: { posture: 'allowed_only', default_mode: 'rw', folders: [{ path: work, mode: 'rw' }] } } });
    expect(r.results.get('w')!.success, r.results.get('w')!.error ?? '').to.equal(true);
    expect(r.workspace).to.deep.include({ level: 'run', summary: `Deny everything, allow listed workspaces${DOT}${realpathSync(work)} (rw)`, kind: 'session' });
  });

  it("never lets a non-admin's own session or one-off level reach past his account level", async () => {
    // bob's account level (set by the admin above) allows only work; his own levels ask for everything.
    await put('/api/gateway/sessions/wide/workspaces', bob, { posture: 'any_except_denied', default_mode: 'rw', folders: [{ path: other, mode: 'rw' }] });
    const target = path.join(other, 'escape.txt');
    const account = `Deny everything, allow listed workspaces${DOT}${realpathSync(work)} (rw)`;
    let r = await run(bob, [call('w', 'write_file', { path: target, content: 'x' }), call('etc', 'read_file', { path: '/etc/hostname' }), call('ok', 'read_file', { path: path.join(work, 'readme.txt') })], { session_id: 'wide' });
    expect(r.workspace).to.deep.include({ level: 'session' });
    expect(r.results.get('w')!.error).to.equal(`${target} is not one of this run's workspaces (${account}).`);
    expect(r.results.get('etc')!.error).to.equal(`/etc/hostname is not one of this run's workspaces (${account}).`);
    expect(r.results.get('ok')!.success).to.equal(true);
    r = await run(bob, [call('w', 'write_file', { path: target, content: 'x' })], { input_data: { workspace: { posture: 'any_except_denied', default_mode: 'rw', folders: [] } } });
    expect(r.workspace).to.deep.include({ level: 'run' });
    expect(r.results.get('w')!.error).to.equal(`${target} is not one of this run's workspaces (${account}).`);
    expect(existsSync(target)).to.equal(false);
    // carol has no account level: the non-admin default caps her own levels to her own folder.
    await put('/api/gateway/sessions/wide/workspaces', carol, { posture: 'any_except_denied', default_mode: 'rw', folders: [] });
    const c = await run(carol, [call('w', 'write_file', { path: target, content: 'x' }), call('own', 'write_file', { path: 'mine.txt', content: 'x' })], { session_id: 'wide' });
    expect(c.results.get('w')!.error).to.match(/is not one of this run's workspaces \(Deny everything, allow listed workspaces\)\. Runs of a non-admin account reach only their own workspace folder/);
    expect(c.results.get('own')!.success).to.equal(true);
    expect(existsSync(target)).to.equal(false);
    const eff = (await k.inject({ url: '/api/gateway/workspace/effective/me?session=wide', token: carol })).json<{ default_mode: string | null; level: string }>();
    expect(eff).to.deep.include({ level: 'session' });
  });

  it('judges nested rows by the longest real-path prefix, refused rows included, links by their real path', async () => {
    await put('/api/gateway/workspace/policy', k.adminToken, { folders: [{ path: nest, mode: 'rw' }, { path: path.join(nest, 'deny'), mode: 'deny' }, { path: path.join(nest, 'deny', 'open'), mode: 'ro' }] });
    try {
      const r = await run(k.adminToken, [
        call('top', 'write_file', { path: path.join(nest, 'top.txt'), content: 't' }),
        call('secret', 'read_file', { path: path.join(nest, 'deny', 'secret.txt') }),
        call('open', 'read_file', { path: path.join(nest, 'deny', 'open', 'open.txt') }),
        call('open-w', 'write_file', { path: path.join(nest, 'deny', 'open', 'w.txt'), content: 'w' }),
        call('link', 'read_file', { path: path.join(nest, 'link-to-secret') }),
        call('dots', 'read_file', { path: path.join(nest, 'deny', 'open', '..', 'secret.txt') }),
      ]);
      const gw = `Allow everything, refuse listed workspaces (rw)${DOT}${realpathSync(nest)} (rw)${DOT}${realpathSync(path.join(nest, 'deny'))} (refused)${DOT}${realpathSync(path.join(nest, 'deny', 'open'))} (ro)`;
      expect(r.results.get('top')!.success).to.equal(true);
      expect(r.results.get('secret')!.error).to.equal(`${path.join(nest, 'deny', 'secret.txt')} is outside the workspaces the gateway allows (${gw}).`);
      expect(r.results.get('open')).to.deep.include({ success: true, output: 'open' });
      expect(r.results.get('open-w')!.error).to.equal(`The gateway allows this workspace read-only: ${path.join(nest, 'deny', 'open', 'w.txt')}.`);
      expect(r.results.get('link')!.error).to.equal(`${path.join(nest, 'link-to-secret')} is outside the workspaces the gateway allows (${gw}).`);
      expect(r.results.get('dots')!.success).to.equal(false);
      expect(r.workspace).to.deep.include({ level: 'gateway', summary: gw });
    } finally {
      await put('/api/gateway/workspace/policy', k.adminToken, { folders: [] });
    }
  });

  it('clamps a stored level the gateway tightened since, with a clamp record {path, asked, got, sentence}', async () => {
    await put('/api/gateway/sessions/clampme/workspaces', bob, { posture: 'allowed_only', folders: [{ path: work, mode: 'rw' }, { path: other, mode: 'rw' }] });
    await put('/api/gateway/workspace/policy', k.adminToken, { folders: [{ path: work, mode: 'ro' }, { path: other, mode: 'deny' }] });
    try {
      const r = await run(bob, [call('w', 'write_file', { path: path.join(work, 'c.txt'), content: 'c' }), call('r', 'read_file', { path: path.join(work, 'readme.txt') })], { session_id: 'clampme' });
      const realWork = realpathSync(work);
      const realOther = realpathSync(other);
      expect(r.workspace.clamped).to.deep.equal([
        { path: realWork, asked: 'rw', got: 'ro', sentence: `The gateway allows this workspace read-only: ${realWork}.` },
        { path: realOther, asked: 'rw', got: null, sentence: `${realOther} is outside the workspaces the gateway allows (Allow everything, refuse listed workspaces (rw)${DOT}${realWork} (ro)${DOT}${realOther} (refused)).` },
      ]);
      expect(r.workspace).to.deep.include({ level: 'session', summary: `Deny everything, allow listed workspaces${DOT}${realWork} (ro)` });
      expect(r.results.get('w')!.error).to.equal(`The gateway allows this workspace read-only: ${path.join(work, 'c.txt')}.`);
      expect(r.results.get('r')!.success).to.equal(true);
    } finally {
      await put('/api/gateway/workspace/policy', k.adminToken, { folders: [] });
    }
  });

  it("applies an admin's tightening at once to a run already started", async () => {
    const target = path.join(work, 'late.txt');
    const r = await run(bob, [call('w', 'write_file', { path: target, content: 'late' })], {}, async () => {
      await put('/api/gateway/workspace/policy', k.adminToken, { folders: [{ path: work, mode: 'deny' }] });
    });
    try {
      expect(r.workspace.level).to.equal('account');
      expect(r.results.get('w')!.error).to.match(/is outside the workspaces the gateway allows/);
      expect(existsSync(target)).to.equal(false);
    } finally {
      await put('/api/gateway/workspace/policy', k.adminToken, { folders: [] });
    }
  });

  it('cannot be widened by a client value of _gateway_workspace', async () => {
    await put('/api/gateway/workspace/policy/bob', k.adminToken, { configured: false });
    const forged = { kind: 'launch_folder', path: '/', level: 'gateway', summary: 'x', layer: null };
    const r = await run(bob, [call('r', 'read_file', { path: path.join(work, 'readme.txt') })], { input_data: { _gateway_workspace: forged } });
    expect(r.results.get('r')!.success).to.equal(false);
    expect(r.workspace).to.deep.include({ level: 'account', kind: 'run' });
  });

  it("lets the gateway list a conversation folder (usable by its owner only) but no other folder of the data directory", async () => {
    const first = await run(bob, [call('n', 'write_file', { path: 'conv.txt', content: 'c' })], { session_id: 'listed' });
    const folder = path.join(data, first.workspace.path);
    await put('/api/gateway/workspace/policy', k.adminToken, { folders: [{ path: folder, mode: 'ro' }] });
    try {
      const db = path.join(data, 'db');
      const res = await k.inject({ method: 'PUT', url: '/api/gateway/workspace/policy', token: k.adminToken, payload: { folders: [{ path: folder, mode: 'ro' }, { path: db, mode: 'ro' }] } });
      expect(res.statusCode).to.equal(400);
      expect(res.json<{ detail: { reason: string; path: string } }>().detail).to.deep.include({ reason: 'workspace_refused', path: db });
      // bob sees the row (his own plane), relative to the data folder; carol sees neither it nor the data folder's path.
      const bobView = await k.inject({ url: '/api/gateway/workspace/policy', token: bob });
      expect(bobView.json<{ policy: { folders: unknown[]; summary: string } }>().policy).to.deep.include({ folders: [{ path: first.workspace.path, mode: 'ro' }], summary: `Allow everything, refuse listed workspaces (rw)${DOT}${first.workspace.path} (ro)` });
      expect(bobView.body).to.not.contain(data);
      const bobEffective = await k.inject({ url: '/api/gateway/workspace/effective/me', token: bob });
      expect(bobEffective.body).to.contain(first.workspace.path);
      expect(bobEffective.body).to.not.contain(data);
      const adminView = await k.inject({ url: '/api/gateway/workspace/policy', token: k.adminToken });
      expect(adminView.body).to.contain(folder);
      const carolView = await k.inject({ url: '/api/gateway/workspace/policy', token: carol });
      expect(carolView.body).to.not.contain(data);
      const carolEffective = await k.inject({ url: '/api/gateway/workspace/effective/me', token: carol });
      expect(carolEffective.body).to.not.contain(data);
    } finally {
      await put('/api/gateway/workspace/policy', k.adminToken, { folders: [] });
    }
  });
  it("keeps an account's other conversation folders refused until one of its levels lists them", async () => {
    const alpha = await run(k.adminToken, [call('w', 'write_file', { path: 'a.txt', content: 'alpha' })], { session_id: 'alpha' });
    const alphaFile = path.join(data, alpha.workspace.path, 'a.txt');
    let beta = await run(k.adminToken, [call('r', 'read_file', { path: alphaFile })], { session_id: 'beta' });
    expect(beta.results.get('r')!.error).to.match(/is protected \(the gateway's data directory\)\.$/);
    await put('/api/gateway/sessions/beta/workspaces', k.adminToken, { posture: 'any_except_denied', default_mode: 'rw', folders: [{ path: path.join(data, alpha.workspace.path), mode: 'ro' }] });
    beta = await run(k.adminToken, [call('r', 'read_file', { path: alphaFile }), call('w', 'write_file', { path: alphaFile, content: 'x' })], { session_id: 'beta' });
    expect(beta.results.get('r')).to.deep.include({ success: true, output: 'alpha' });
    // What a run is told names a folder of the data directory relative to it, never where the data directory is.
    expect(beta.results.get('w')!.error).to.equal(`This run may only read ${alphaFile} (Allow everything, refuse listed workspaces (rw)${DOT}${alpha.workspace.path} (ro)).`);
    expect(beta.workspace.summary).to.equal(`Allow everything, refuse listed workspaces (rw)${DOT}${alpha.workspace.path} (ro)`);
    // Another account cannot list it at all.
    const res = await k.inject({ method: 'PUT', url: '/api/gateway/sessions/x/workspaces', token: carol, payload: { posture: 'allowed_only', folders: [{ path: path.join(data, alpha.workspace.path), mode: 'ro' }] } });
    expect(res.statusCode).to.equal(400);
    expect(res.json<{ detail: { reason: string; message: string } }>().detail).to.deep.include({ reason: 'workspace_refused', message: `${path.join(data, alpha.workspace.path)} does not exist or is not yours to use: a workspace must be an existing folder you may reach. Nothing was saved.` });
  });
});

describe('workspaces: no configured gateway row opens a built-in refused folder', function () {
  this.timeout(120_000);
  const tmp = tempDir('keel-wsc-');
  const home = path.join(tmp.dir, 'home');
  const previousHome = process.env.HOME;
  let k: TestKernel;
  after(async () => {
    process.env.HOME = previousHome;
    await k?.stop();
    tmp.remove();
  });

  it("refuses an admin run a credential file even when the setting gatewayPolicy lists its folder rw (the PUT rules are the setting's too)", async () => {
    mkdirSync(path.join(home, '.ssh'), { recursive: true });
    writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY');
    process.env.HOME = home;
    try {
      k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, { plugin: workspacesPlugin, config: { gatewayPolicy: { folders: [{ path: path.join(home, '.ssh'), mode: 'rw' }, { path: '/proc', mode: 'ro' }] } } }, gatewayRunsPlugin] });
    } finally {
      process.env.HOME = previousHome;
    }
    const body = multipart({}, { name: 'tools.flow', bytes: bundle('tools', '1.0.0', toolCallsFlow()) });
    expect((await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: k.adminToken, payload: body.payload, headers: body.headers })).statusCode).to.equal(201);
    const calls = [call('key', 'read_file', { path: path.join(home, '.ssh', 'id_rsa') }), call('environ', 'read_file', { path: '/proc/self/environ' })];
    const started = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: 'tools', input_data: { calls } } });
    expect(started.statusCode, started.body).to.equal(200);
    const runId = started.json<{ run_id: string }>().run_id;
    const done = await until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}`, token: k.adminToken })).json<RunRecord>(), (r) => TERMINAL.includes(r.status), 60_000);
    const results = new Map(((done.output?.results ?? []) as ToolResult[]).map((r) => [r.call_id, r]));
    expect(results.get('key')).to.deep.include({ success: false, output: null });
    expect(results.get('key')!.error).to.equal(`${path.join(home, '.ssh', 'id_rsa')} is inside ${realpathSync(path.join(home, '.ssh'))}, which is protected (a credential directory).`);
    expect(results.get('environ')!.error).to.equal('/proc/self/environ is inside /proc, which is protected (a system folder of processes and devices).');
  });
});
