import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type InjectResponse, type TestKernel } from '@keel/plugin-sdk/testing';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { tempDir } from './helpers/paths.js';

/**
 * The workspace policy routes of seed §4.5 (all but the run workspace routes), through HTTP on the
 * real boot path: the gateway, account and session levels, their principal rules, every PUT
 * refusal (400 workspace_refused, nothing saved), the effective set and its dry run, the audit log.
 */

type Refusal = { detail: { reason: string; message: string; path: string | null } };
type Gateway = { ok: boolean; policy: { posture: string; default_mode: string; folders: Array<{ path: string; mode: string }>; builtin_refused: string[]; builtin_refused_hidden?: boolean; max_attachment_bytes: number; summary: string; command_sandbox: Record<string, unknown> } };
type Layer = { account: string; configured: boolean; posture: string; default_mode: string; folders: Array<{ path: string; mode: string }>; follows?: string; session_id?: string };
type Effective = { ok: boolean; account: string; session_id: string | null; level: string; posture: string; default_mode: string | null; folders: Array<{ path: string; mode: string; cap: string; source: string }>; summary: string; gateway_summary: string };

const DOT = ' \u00b7 ';

describe('workspaces: the policy at four levels over HTTP (seed §4.5)', function () {
  this.timeout(60_000);
  const tmp = tempDir('keel-wsp-');
  const home = path.join(tmp.dir, 'home');
  const work = path.join(tmp.dir, 'work');
  const shared = path.join(tmp.dir, 'shared');
  const previousHome = process.env.HOME;
  let k: TestKernel;
  let bob = '';
  let carol = '';
  let data = '';

  const call = (method: string, url: string, token: string, payload?: unknown) => k.inject({ method, url, token, ...(payload === undefined ? {} : { payload }) });
  const gatewayOf = async (token = k.adminToken) => (await call('GET', '/api/gateway/workspace/policy', token)).json<Gateway>().policy;
  const refused = (res: InjectResponse, message: string | RegExp, offending: string | null) => {
    expect(res.statusCode, res.body).to.equal(400);
    const { detail } = res.json<Refusal>();
    expect(detail.reason).to.equal('workspace_refused');
    if (typeof message === 'string') expect(detail.message).to.equal(message);
    else expect(detail.message).to.match(message);
    expect(detail.path).to.equal(offending);
  };
  const putGateway = (body: unknown, token = k.adminToken) => call('PUT', '/api/gateway/workspace/policy', token, body);

  before(async () => {
    // The credential folders are the server user's: this kernel's user lives in a temporary home.
    for (const d of [home, path.join(home, '.ssh'), path.join(home, '.aws'), work, path.join(work, 'src'), path.join(work, 'src', 'secret'), shared]) mkdirSync(d, { recursive: true });
    process.env.HOME = home;
    k = await createTestKernel({ plugins: [workspacesPlugin] });
    process.env.HOME = previousHome;
    data = realpathSync(k.dataDir);
    for (const name of ['bob', 'carol']) {
      const res = await call('POST', '/api/gateway/admin/users', k.adminToken, { account: name });
      expect(res.statusCode).to.equal(201);
      if (name === 'bob') bob = res.json<{ token: { token: string } }>().token.token;
      else carol = res.json<{ token: { token: string } }>().token.token;
    }
  });
  after(async () => {
    process.env.HOME = previousHome;
    await k?.stop();
    tmp.remove();
  });

  describe('the gateway level', function () {
    it('answers a fresh gateway: any_except_denied, rw, no rows, the summary line, the attachment limit and a truthful command_sandbox', async () => {
      const res = await call('GET', '/api/gateway/workspace/policy', k.adminToken);
      expect(res.statusCode).to.equal(200);
      const { ok, policy } = res.json<Gateway>();
      expect(ok).to.equal(true);
      expect(policy).to.deep.include({ posture: 'any_except_denied', default_mode: 'rw', folders: [], summary: 'Allow everything, refuse listed workspaces (rw)', max_attachment_bytes: 26_214_400 });
      expect(policy.builtin_refused).to.include(data);
      expect(policy.builtin_refused).to.include(path.join(realpathSync(home), '.ssh'));
      expect(policy).to.not.have.property('builtin_refused_hidden');
      expect(policy.command_sandbox).to.deep.include({ state: 'refused', unsandboxed_commands_allowed: false, configured: false });
      expect(String(policy.command_sandbox.sentence)).to.contain('Keel runs no shell commands');
    });

    it('shows a non-admin no built-in folders (builtin_refused: [], builtin_refused_hidden: true) and never the data folder path', async () => {
      const res = await call('GET', '/api/gateway/workspace/policy', bob);
      expect(res.statusCode).to.equal(200);
      const { policy } = res.json<Gateway>();
      expect(policy.builtin_refused).to.deep.equal([]);
      expect(policy.builtin_refused_hidden).to.equal(true);
      expect(res.body).to.not.contain(data);
      expect(res.body).to.not.contain(k.dataDir);
    });

    it('refuses an unsigned caller (401) and a non-admin PUT (403), and stores nothing', async () => {
      expect((await k.inject({ url: '/api/gateway/workspace/policy' })).statusCode).to.equal(401);
      const res = await putGateway({ default_mode: 'ro' }, bob);
      expect(res.statusCode).to.equal(403);
      expect((await gatewayOf()).default_mode).to.equal('rw');
    });

    it('replaces the named fields and keeps the others; the summary line is byte-exact; the change is audited', async () => {
      let res = await putGateway({ folders: [{ path: shared, mode: 'ro' }, { path: path.join(work, 'src', 'secret'), mode: 'deny' }] });
      expect(res.statusCode, res.body).to.equal(200);
      res = await putGateway({ default_mode: 'ro' });
      expect(res.statusCode, res.body).to.equal(200);
      const policy = res.json<Gateway>().policy;
      expect(policy.posture).to.equal('any_except_denied');
      expect(policy.folders).to.deep.equal([{ path: realpathSync(shared), mode: 'ro' }, { path: realpathSync(path.join(work, 'src', 'secret')), mode: 'deny' }]);
      expect(policy.summary).to.equal(`Allow everything, refuse listed workspaces (ro)${DOT}${realpathSync(shared)} (ro)${DOT}${realpathSync(path.join(work, 'src', 'secret'))} (refused)`);
      const audit = (await call('GET', '/api/gateway/workspace/audit', k.adminToken)).json<{ records: Array<Record<string, unknown>> }>().records;
      const last = audit[audit.length - 1]!;
      expect(last).to.deep.include({ event: 'workspace_policy_changed', scope: 'gateway', actor: 'default:admin' });
      expect(last.changed).to.deep.equal(['default_mode']);
      expect((await call('GET', '/api/gateway/workspace/audit', bob)).statusCode).to.equal(403);
      // Back to rw for what follows (allowed_only summaries print no default).
      res = await putGateway({ default_mode: 'rw', posture: 'allowed_only' });
      expect(res.json<Gateway>().policy.summary).to.equal(`Deny everything, allow listed workspaces${DOT}${realpathSync(shared)} (ro)${DOT}${realpathSync(path.join(work, 'src', 'secret'))} (refused)`);
      res = await putGateway({ posture: 'any_except_denied' });
      expect(res.statusCode).to.equal(200);
    });

    it('accepts an echo of its own GET answer unchanged', async () => {
      const policy = await gatewayOf();
      const res = await putGateway({ ...policy, ok: true });
      expect(res.statusCode, res.body).to.equal(200);
      expect((await gatewayOf()).folders).to.deep.equal(policy.folders);
    });
  });

  describe('every PUT rule refused with 400 workspace_refused, nothing saved', function () {
    let stored: Gateway['policy'];
    beforeEach(async () => {
      stored = await gatewayOf();
    });
    afterEach(async () => {
      expect(await gatewayOf(), 'nothing was saved').to.deep.equal(stored);
    });

    it('a row listed twice (also as the same real path through a link)', async () => {
      refused(await putGateway({ folders: [{ path: work, mode: 'ro' }, { path: work, mode: 'rw' }] }), `'${work}' is listed twice; nothing was saved.`, work);
      const link = path.join(tmp.dir, 'work-link');
      symlinkSync(work, link);
      refused(await putGateway({ folders: [{ path: work, mode: 'ro' }, { path: link, mode: 'deny' }] }), /is listed twice/, link);
    });

    it('a ro or rw row inside the data folder, directly or through a link, and one inside a credential folder', async () => {
      refused(await putGateway({ folders: [{ path: data, mode: 'ro' }] }), /is protected \(the gateway's data directory\); it is never a workspace/, data);
      mkdirSync(path.join(data, 'plugins'), { recursive: true });
      refused(await putGateway({ folders: [{ path: path.join(data, 'plugins'), mode: 'rw' }] }), /the gateway's data directory/, path.join(data, 'plugins'));
      const intoData = path.join(tmp.dir, 'into-data');
      symlinkSync(data, intoData);
      refused(await putGateway({ folders: [{ path: intoData, mode: 'ro' }] }), /the gateway's data directory/, intoData);
      refused(await putGateway({ folders: [{ path: path.join(home, '.ssh'), mode: 'ro' }] }), `${path.join(home, '.ssh')} is a protected credential directory; it is never a workspace.`, path.join(home, '.ssh'));
      const intoSsh = path.join(tmp.dir, 'into-ssh');
      symlinkSync(path.join(home, '.ssh'), intoSsh);
      refused(await putGateway({ folders: [{ path: intoSsh, mode: 'rw' }] }), /protected credential directory/, intoSsh);
      mkdirSync(path.join(home, '.aws', 'deep'), { recursive: true });
      refused(await putGateway({ folders: [{ path: path.join(home, '.aws', 'deep'), mode: 'ro' }] }), /protected credential directory/, path.join(home, '.aws', 'deep'));
    });

    it('an unknown posture, default_mode or mode', async () => {
      refused(await putGateway({ posture: 'everything' }), /^posture must be 'allowed_only' .* or 'any_except_denied' .*not 'everything'/, null);
      refused(await putGateway({ default_mode: 'deny' }), /^default_mode must be 'ro' .* or 'rw'/, null);
      refused(await putGateway({ folders: [{ path: work, mode: 'write' }] }), /^The mode of .* must be 'ro', 'rw' or 'deny'/, work);
      refused(await putGateway({ folders: [{ path: work }] }), /must be 'ro', 'rw' or 'deny', not missing/, work);
    });

    it('shared_workspace, any other field, and a row with another field', async () => {
      refused(await putGateway({ shared_workspace: work }), 'shared_workspace no longer exists: list it as a workspace (folders: [{path, mode: "rw"}]). Nothing was saved.', null);
      refused(await putGateway({ posture: 'allowed_only', trust: true }), "Unknown workspace policy field(s) [trust]; nothing was saved. Accepted: [posture, default_mode, folders].", null);
      refused(await putGateway({ workspace_allowed_paths: [work] }), /Unknown workspace policy field\(s\) \[workspace_allowed_paths\].* no longer exist/, null);
      refused(await putGateway({ folders: [{ path: work, mode: 'ro', recursive: true }] }), /Unknown folder row field\(s\) \[recursive\]/, work);
      refused(await putGateway({ folders: 'nope' }), /^folders must be a list/, null);
      refused(await putGateway({ folders: ['nope'] }), /^Each folder row must be an object/, null);
    });

    it('paths that are not absolute, not existing, not folders, with .., or with a NUL character', async () => {
      refused(await putGateway({ folders: [{ path: 'relative/dir', mode: 'ro' }] }), /relative\/dir is not an absolute path/, 'relative/dir');
      refused(await putGateway({ folders: [{ path: path.join(work, 'missing'), mode: 'ro' }] }), /does not exist/, path.join(work, 'missing'));
      const file = path.join(work, 'a-file.txt');
      writeFileSync(file, 'x');
      refused(await putGateway({ folders: [{ path: file, mode: 'ro' }] }), /is not a folder/, file);
      const dotted = `${work}/src/../src`;
      refused(await putGateway({ folders: [{ path: dotted, mode: 'ro' }] }), /contains '\.\.'/, dotted);
      refused(await putGateway({ folders: [{ path: `${work}\u0000/x`, mode: 'ro' }] }), /contains a NUL character/, `${work}\\u0000/x`);
      refused(await putGateway({ folders: [{ path: 42, mode: 'ro' }] }), /The path must be a string/, null);
    });

    it('a body that is not an object is refused before anything is read', async () => {
      const res = await putGateway([{ posture: 'allowed_only' }]);
      expect(res.statusCode).to.equal(400);
    });
  });

  describe('an account level', function () {
    afterEach(async () => {
      await call('PUT', '/api/gateway/workspace/policy/bob', k.adminToken, { configured: false });
    });

    it('names an account by name, tenant:name or me; /policy/self is 410 naming /policy/me; an unknown account 404', async () => {
      for (const name of ['bob', 'default:bob']) {
        const res = await call('GET', `/api/gateway/workspace/policy/${encodeURIComponent(name)}`, k.adminToken);
        expect(res.statusCode, name).to.equal(200);
        expect(res.json<Layer>()).to.deep.include({ account: 'default:bob', configured: false, follows: 'own_folders', posture: 'allowed_only', folders: [] });
      }
      const me = await call('GET', '/api/gateway/workspace/policy/me', bob);
      expect(me.json<Layer>()).to.deep.include({ account: 'default:bob', configured: false });
      const admin = await call('GET', '/api/gateway/workspace/policy/me', k.adminToken);
      expect(admin.json<Layer>()).to.deep.include({ account: 'default:admin', configured: false, follows: 'gateway', posture: 'any_except_denied', default_mode: 'rw', folders: [] });
      const self = await call('GET', '/api/gateway/workspace/policy/self', bob);
      expect(self.statusCode).to.equal(410);
      expect(JSON.stringify(self.json())).to.contain('/policy/me');
      expect((await call('GET', '/api/gateway/workspace/policy/nobody', k.adminToken)).statusCode).to.equal(404);
      expect((await call('GET', '/api/gateway/workspace/policy/other:bob', k.adminToken)).statusCode).to.equal(404);
      expect((await call('GET', '/api/gateway/workspace/policy/default:', k.adminToken)).statusCode).to.equal(400);
    });

    it("refuses a non-admin another account's level (403, also for an account that does not exist: no oracle) and any account PUT", async () => {
      expect((await call('GET', '/api/gateway/workspace/policy/carol', bob)).statusCode).to.equal(403);
      expect((await call('GET', '/api/gateway/workspace/policy/admin', bob)).statusCode).to.equal(403);
      expect((await call('GET', '/api/gateway/workspace/policy/nobody', bob)).statusCode).to.equal(403);
      expect((await call('GET', '/api/gateway/workspace/effective/carol', bob)).statusCode).to.equal(403);
      expect((await call('PUT', '/api/gateway/workspace/policy/me', bob, { posture: 'any_except_denied' })).statusCode).to.equal(403);
      expect((await call('PUT', '/api/gateway/workspace/policy/bob', bob, { posture: 'any_except_denied' })).statusCode).to.equal(403);
      expect((await call('GET', '/api/gateway/workspace/policy/me', bob)).json<Layer>().configured).to.equal(false);
    });

    it('stores a layer (unnamed fields start from the gateway), answers it, audits it; {configured: false} follows again', async () => {
      let res = await call('PUT', '/api/gateway/workspace/policy/bob', k.adminToken, { folders: [{ path: work, mode: 'rw' }] });
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json<Layer>()).to.deep.include({ account: 'default:bob', configured: true, posture: 'any_except_denied', default_mode: 'rw', folders: [{ path: realpathSync(work), mode: 'rw' }] });
      const audit = (await call('GET', '/api/gateway/workspace/audit', k.adminToken)).json<{ records: Array<Record<string, unknown>> }>().records;
      expect(audit[audit.length - 1]).to.deep.include({ scope: 'account', account: 'default:bob', actor: 'default:admin' });
      res = await call('PUT', '/api/gateway/workspace/policy/bob', k.adminToken, { configured: false, posture: 'allowed_only' });
      refused(res, /configured: false .* cannot come with posture/, null);
      refused(await call('PUT', '/api/gateway/workspace/policy/bob', k.adminToken, { configured: 'no' }), /configured must be true or false/, null);
      res = await call('PUT', '/api/gateway/workspace/policy/bob', k.adminToken, { configured: false });
      expect(res.json<Layer>()).to.deep.include({ configured: false, follows: 'own_folders' });
      const last = (await call('GET', '/api/gateway/workspace/audit', k.adminToken)).json<{ records: Array<Record<string, unknown>> }>().records.pop()!;
      expect(last.changed).to.deep.equal(['configured']);
    });

    it("checks rows against the gateway's caps: a row the gateway refuses, a mode above the cap, a rw default under a ro gateway", async () => {
      const secret = path.join(work, 'src', 'secret');
      refused(await call('PUT', '/api/gateway/workspace/policy/bob', k.adminToken, { folders: [{ path: secret, mode: 'ro' }] }), new RegExp(`^${secret} is outside the workspaces the gateway allows \\(Allow everything, refuse listed workspaces \\(rw\\)`), secret);
      refused(await call('PUT', '/api/gateway/workspace/policy/bob', k.adminToken, { folders: [{ path: shared, mode: 'rw' }] }), `The gateway allows this workspace read-only: ${shared}.`, shared);
      // A deny row is never checked against the caps (a refusal never widens).
      expect((await call('PUT', '/api/gateway/workspace/policy/bob', k.adminToken, { folders: [{ path: secret, mode: 'deny' }, { path: shared, mode: 'ro' }] })).statusCode).to.equal(200);
      await putGateway({ default_mode: 'ro' });
      try {
        refused(await call('PUT', '/api/gateway/workspace/policy/carol', k.adminToken, { posture: 'any_except_denied', default_mode: 'rw' }), 'The gateway allows unlisted workspaces read-only, so the default cannot be read & write.', null);
      } finally {
        await putGateway({ default_mode: 'rw' });
      }
    });
  });

  describe('a session level', function () {
    it("is stored in the owner's plane: the owner reads and writes it, an admin names the owner with ?account=, another account sees its own", async () => {
      let res = await call('PUT', '/api/gateway/sessions/s1/workspaces', bob, { posture: 'allowed_only', folders: [{ path: work, mode: 'ro' }] });
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json<Layer>()).to.deep.include({ session_id: 's1', account: 'default:bob', configured: true, posture: 'allowed_only', folders: [{ path: realpathSync(work), mode: 'ro' }] });
      expect((await call('GET', '/api/gateway/sessions/s1/workspaces', bob)).json<Layer>().configured).to.equal(true);
      // The same session id is another session in carol's plane, and in the admin's own.
      expect((await call('GET', '/api/gateway/sessions/s1/workspaces', carol)).json<Layer>()).to.deep.include({ account: 'default:carol', configured: false });
      expect((await call('GET', '/api/gateway/sessions/s1/workspaces', k.adminToken)).json<Layer>()).to.deep.include({ account: 'default:admin', configured: false });
      const asAdmin = await call('GET', '/api/gateway/sessions/s1/workspaces?account=default:bob', k.adminToken);
      expect(asAdmin.json<Layer>()).to.deep.include({ account: 'default:bob', configured: true });
      const audit = (await call('GET', '/api/gateway/workspace/audit', k.adminToken)).json<{ records: Array<Record<string, unknown>> }>().records;
      expect(audit[audit.length - 1]).to.deep.include({ scope: 'session', account: 'default:bob', session_id: 's1', actor: 'default:bob' });
      // An admin may write it for the owner.
      res = await call('PUT', '/api/gateway/sessions/s1/workspaces?account=default:bob', k.adminToken, { folders: [{ path: work, mode: 'rw' }] });
      expect(res.json<Layer>()).to.deep.include({ account: 'default:bob', folders: [{ path: realpathSync(work), mode: 'rw' }] });
    });

    it("refuses a non-admin another account's session (403) for reading and writing, and stores nothing", async () => {
      for (const account of ['default:bob', 'bob', 'admin', 'nobody']) {
        expect((await call('GET', `/api/gateway/sessions/s1/workspaces?account=${account}`, carol)).statusCode, account).to.equal(403);
        expect((await call('PUT', `/api/gateway/sessions/s1/workspaces?account=${account}`, carol, { configured: false })).statusCode, account).to.equal(403);
      }
      expect((await call('GET', '/api/gateway/sessions/s1/workspaces', bob)).json<Layer>().configured).to.equal(true);
      // Naming oneself is fine.
      expect((await call('GET', '/api/gateway/sessions/s1/workspaces?account=default:bob', bob)).statusCode).to.equal(200);
    });

    it("checks rows against the GATEWAY's eligible set (not the account's), and refuses the data folder to a non-admin without telling where it is", async () => {
      // bob's account level is the non-admin default (only his own folder); the session may still list what the gateway allows.
      expect((await call('PUT', '/api/gateway/sessions/s2/workspaces', bob, { posture: 'allowed_only', folders: [{ path: shared, mode: 'ro' }] })).statusCode).to.equal(200);
      refused(await call('PUT', '/api/gateway/sessions/s2/workspaces', bob, { folders: [{ path: shared, mode: 'rw' }] }), `The gateway allows this workspace read-only: ${shared}.`, shared);
      const intoData = path.join(tmp.dir, 'bob-into-data');
      symlinkSync(data, intoData);
      // To a non-admin, what lies in a protected folder reads as missing: no oracle for the data folder or a credential file.
      const res = await call('PUT', '/api/gateway/sessions/s2/workspaces', bob, { folders: [{ path: intoData, mode: 'ro' }] });
      refused(res, `${intoData} does not exist or is not yours to use: a workspace must be an existing folder you may reach. Nothing was saved.`, intoData);
      expect(res.body).to.not.contain(data);
      writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'key');
      for (const probe of [path.join(home, '.ssh'), path.join(home, '.ssh', 'id_rsa'), path.join(home, '.ssh', 'missing')]) {
        refused(await call('PUT', '/api/gateway/sessions/s2/workspaces', bob, { folders: [{ path: probe, mode: 'deny' }] }), `${probe} does not exist or is not yours to use: a workspace must be an existing folder you may reach. Nothing was saved.`, probe);
        refused(await call('POST', '/api/gateway/workspace/effective/me', bob, { workspace: { posture: 'allowed_only', default_mode: 'rw', folders: [{ path: probe, mode: 'ro' }] } }), `${probe} does not exist or is not yours to use: a workspace must be an existing folder you may reach. Nothing was saved.`, probe);
      }
      refused(await call('PUT', '/api/gateway/sessions/s2/workspaces', bob, { shared_workspace: true }), /shared_workspace no longer exists/, null);
      refused(await call('PUT', '/api/gateway/sessions/s2/workspaces', bob, { mode: 'rw' }), /Unknown workspace policy field\(s\) \[mode\]/, null);
      expect((await call('GET', '/api/gateway/sessions/s2/workspaces', bob)).json<Layer>().folders).to.deep.equal([{ path: realpathSync(shared), mode: 'ro' }]);
      expect((await call('PUT', '/api/gateway/sessions/s2/workspaces', bob, { configured: false })).json<Layer>()).to.deep.include({ configured: false, follows: 'own_folders' });
    });
  });

  describe('the effective set and its dry run', function () {
    it('resolves session → account → gateway, exactly one layer combined with the gateway caps', async () => {
      // bob: no account layer → the non-admin default (only his own folder).
      let eff = (await call('GET', '/api/gateway/workspace/effective/me', bob)).json<Effective>();
      expect(eff).to.deep.include({ ok: true, account: 'default:bob', session_id: null, level: 'account', posture: 'allowed_only', default_mode: null, summary: 'Deny everything, allow listed workspaces' });
      expect(eff.gateway_summary).to.equal(`Allow everything, refuse listed workspaces (rw)${DOT}${realpathSync(shared)} (ro)${DOT}${realpathSync(path.join(work, 'src', 'secret'))} (refused)`);
      // Under an allowed_only layer, gateway rows the layer does not reach are not listed.
      expect(eff.folders).to.deep.equal([]);
      // The session level is chosen over the account level, and capped by it: bob's account level is
      // the non-admin default, so his own session cannot reach past his own folder.
      eff = (await call('GET', '/api/gateway/workspace/effective/me?session=s1', bob)).json<Effective>();
      expect(eff).to.deep.include({ level: 'session', session_id: 's1', posture: 'allowed_only', default_mode: null });
      expect(eff.folders[0]).to.deep.equal({ path: realpathSync(work), mode: 'deny', cap: 'deny', source: 'session' });
      expect(eff.summary).to.equal(`Deny everything, allow listed workspaces${DOT}${realpathSync(work)} (refused)`);
      // Once an admin opens the folder to bob's account, his session reaches it at its own mode.
      await call('PUT', '/api/gateway/workspace/policy/bob', k.adminToken, { posture: 'allowed_only', folders: [{ path: work, mode: 'rw' }] });
      eff = (await call('GET', '/api/gateway/workspace/effective/me?session=s1', bob)).json<Effective>();
      expect(eff.folders[0]).to.deep.equal({ path: realpathSync(work), mode: 'rw', cap: 'rw', source: 'session' });
      expect(eff.summary).to.equal(`Deny everything, allow listed workspaces${DOT}${realpathSync(work)} (rw)`);
      // An account level replaces the default; the admin reads bob's with his name.
      await call('PUT', '/api/gateway/workspace/policy/bob', k.adminToken, { posture: 'any_except_denied', default_mode: 'ro', folders: [{ path: shared, mode: 'ro' }] });
      eff = (await call('GET', '/api/gateway/workspace/effective/default:bob', k.adminToken)).json<Effective>();
      expect(eff).to.deep.include({ level: 'account', posture: 'any_except_denied', default_mode: 'ro' });
      expect(eff.folders).to.deep.include({ path: realpathSync(shared), mode: 'ro', cap: 'ro', source: 'account' });
      expect(eff.folders).to.deep.include({ path: realpathSync(path.join(work, 'src', 'secret')), mode: 'deny', cap: 'deny', source: 'gateway' });
      // An admin without layers follows the gateway.
      eff = (await call('GET', '/api/gateway/workspace/effective/me', k.adminToken)).json<Effective>();
      expect(eff).to.deep.include({ level: 'gateway', posture: 'any_except_denied', default_mode: 'rw', summary: eff.gateway_summary });
      await call('PUT', '/api/gateway/workspace/policy/bob', k.adminToken, { configured: false });
    });

    it('dry-runs a layer without storing it; refuses what a PUT refuses; null tries the level left unconfigured', async () => {
      const auditBefore = (await call('GET', '/api/gateway/workspace/audit', k.adminToken)).json<{ records: unknown[] }>().records.length;
      let res = await call('POST', '/api/gateway/workspace/effective/me', bob, { workspace: { posture: 'allowed_only', default_mode: 'rw', folders: [{ path: shared, mode: 'ro' }] } });
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json<Effective>()).to.deep.include({ level: 'account', posture: 'allowed_only', summary: `Deny everything, allow listed workspaces${DOT}${realpathSync(shared)} (ro)` });
      expect((await call('GET', '/api/gateway/workspace/policy/me', bob)).json<Layer>().configured).to.equal(false);
      refused(await call('POST', '/api/gateway/workspace/effective/me', bob, { workspace: { posture: 'allowed_only', default_mode: 'rw', folders: [{ path: shared, mode: 'rw' }] } }), `The gateway allows this workspace read-only: ${shared}.`, shared);
      res = await call('POST', '/api/gateway/workspace/effective/me', bob, { workspace: null, session: 's1' });
      expect(res.json<Effective>()).to.deep.include({ level: 'account', posture: 'allowed_only' });
      res = await call('POST', '/api/gateway/workspace/effective/me', bob, { workspace: { posture: 'any_except_denied', default_mode: 'ro', folders: [] }, session: 's9' });
      expect(res.json<Effective>()).to.deep.include({ level: 'session', session_id: 's9', default_mode: 'ro' });
      expect((await call('GET', '/api/gateway/sessions/s9/workspaces', bob)).json<Layer>().configured).to.equal(false);
      refused(await call('POST', '/api/gateway/workspace/effective/me', bob, { workspace: { posture: 'allowed_only', shared_workspace: true } }), /shared_workspace no longer exists/, null);
      refused(await call('POST', '/api/gateway/workspace/effective/me', bob, { workspace: { posture: 'allowed_only', allowed_paths: [work] } }), /Unknown workspace policy field\(s\) \[allowed_paths\]/, null);
      refused(await call('POST', '/api/gateway/workspace/effective/me', bob, { workspace: { default_mode: 'ro' } }), /^posture must be/, null);
      refused(await call('POST', '/api/gateway/workspace/effective/me', bob, { workspace: 'allowed_only' }), /must be an object/, null);
      expect((await call('POST', '/api/gateway/workspace/effective/me', bob, { session: 's1' })).statusCode).to.equal(400);
      expect((await call('POST', '/api/gateway/workspace/effective/me', bob, { workspace: null, extra: 1 })).statusCode).to.equal(400);
      expect((await call('POST', '/api/gateway/workspace/effective/carol', bob, { workspace: null })).statusCode).to.equal(403);
      const auditAfter = (await call('GET', '/api/gateway/workspace/audit', k.adminToken)).json<{ records: unknown[] }>().records.length;
      expect(auditAfter).to.equal(auditBefore);
    });
  });
});

describe('workspaces: the levels and the audit log are durable (LMDB), and odd names never reach a store', function () {
  this.timeout(60_000);
  const tmp = tempDir('keel-wsd-');
  const data = path.join(tmp.dir, 'data');
  const work = path.join(tmp.dir, 'work');
  let k: TestKernel;
  after(async () => {
    await k?.stop();
    tmp.remove();
  });

  it('keeps the gateway, account and session levels and every audit record across a restart', async () => {
    mkdirSync(work, { recursive: true });
    k = await createTestKernel({ dataDir: data, plugins: [workspacesPlugin] });
    const admin = k.adminToken;
    const created = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: admin, payload: { account: 'dave' } });
    const dave = created.json<{ token: { token: string } }>().token.token;
    expect((await k.inject({ method: 'PUT', url: '/api/gateway/workspace/policy', token: admin, payload: { default_mode: 'ro', folders: [{ path: work, mode: 'ro' }] } })).statusCode).to.equal(200);
    expect((await k.inject({ method: 'PUT', url: '/api/gateway/workspace/policy/dave', token: admin, payload: { posture: 'allowed_only', folders: [{ path: work, mode: 'ro' }] } })).statusCode).to.equal(200);
    expect((await k.inject({ method: 'PUT', url: '/api/gateway/sessions/d1/workspaces', token: dave, payload: { posture: 'allowed_only', default_mode: 'ro', folders: [{ path: work, mode: 'ro' }] } })).statusCode).to.equal(200);
    const before = (await k.inject({ url: '/api/gateway/workspace/audit', token: admin })).json<{ records: Array<{ seq: number; scope: string }> }>().records;
    expect(before.map((r) => r.scope)).to.deep.equal(['gateway', 'account', 'session']);
    expect(before.map((r) => r.seq)).to.deep.equal([1, 2, 3]);
    await k.stop();
    k = await createTestKernel({ dataDir: data, plugins: [workspacesPlugin] });
    const policy = (await k.inject({ url: '/api/gateway/workspace/policy', token: k.adminToken })).json<Gateway>().policy;
    expect(policy).to.deep.include({ default_mode: 'ro', folders: [{ path: realpathSync(work), mode: 'ro' }] });
    expect((await k.inject({ url: '/api/gateway/workspace/policy/dave', token: k.adminToken })).json<Layer>()).to.deep.include({ configured: true, posture: 'allowed_only' });
    expect((await k.inject({ url: '/api/gateway/sessions/d1/workspaces?account=dave', token: k.adminToken })).json<Layer>()).to.deep.include({ configured: true });
    const after = (await k.inject({ url: '/api/gateway/workspace/audit', token: k.adminToken })).json<{ records: unknown[] }>().records;
    expect(after).to.deep.equal(before);
    // Paging: one record after the first.
    const page = (await k.inject({ url: '/api/gateway/workspace/audit?after=1&limit=1', token: k.adminToken })).json<{ records: Array<{ seq: number }>; next_after: number | null }>();
    expect(page.records.map((r) => r.seq)).to.deep.equal([2]);
    expect(page.next_after).to.equal(2);
  });

  it('answers odd account names and session ids with 400, 403, 404 or 410, never a server error', async () => {
    const admin = k.adminToken;
    for (const name of ['..', '%2E%2E%2Fetc', 'a%00b', ':', 'default:', ':dave', 'x'.repeat(301), 'SELF', 'Me', '%20']) {
      const res = await k.inject({ url: `/api/gateway/workspace/policy/${name}`, token: admin });
      expect([400, 404], `${name}: ${res.body}`).to.include(res.statusCode);
    }
    for (const id of ['x'.repeat(257), '%00']) {
      const res = await k.inject({ url: `/api/gateway/sessions/${id}/workspaces`, token: admin });
      expect([200, 400, 404], `${id}: ${res.body}`).to.include(res.statusCode);
      expect(res.statusCode).to.be.below(500);
    }
    expect((await k.inject({ url: `/api/gateway/sessions/${'x'.repeat(257)}/workspaces`, token: admin })).statusCode).to.equal(400);
    expect((await k.inject({ url: '/api/gateway/workspace/policy/self', token: admin })).statusCode).to.equal(410);
    expect((await k.inject({ url: '/api/gateway/workspace/effective/self', token: admin })).statusCode).to.equal(410);
  });
});
