import { expect } from 'chai';
import { bootWorkspaceGateway, type WorkspaceGateway } from './helpers/run-workspace.js';
import { until } from './helpers/gateway-runs.js';

/**
 * Issue 14 item 1: `GET /runs` as seed §2.8/§4.3 and reference gateway-surfaces §4.3 describe it —
 * turns (`root_only`), `archived_only`, `kind`, `session_kind`, `archived_sessions` on every listing,
 * the attribution fields on every row, `archived/archived_at` on archived sessions' rows and
 * `workspace_root` on turn rows — and never another account's runs.
 */

interface Row {
  run_id: string;
  status: string;
  session_id: string;
  parent_run_id: string | null;
  kind: string;
  session_kind: string | null;
  automation_id: string | null;
  role: string | null;
  occurrence_index: number | null;
  legacy: boolean;
  archived?: boolean;
  archived_at?: string;
  workspace_root?: string | null;
}
type Listing = { items: Row[]; archived_sessions: number };

describe('sessions: the run listing (issue 14 item 1)', function () {
  this.timeout(300_000);
  let g: WorkspaceGateway;
  before(async () => {
    g = await bootWorkspaceGateway();
  });
  after(async () => {
    await g?.stop();
  });

  const list = async (token: string, query = '') => {
    const res = await g.get(token, `/api/gateway/runs?${query}`);
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<Listing>();
  };
  const ids = (l: Listing) => l.items.map((r) => r.run_id);
  const turn = async (token: string, session: string, extra: Record<string, unknown> = {}) => (await g.runTools(token, [], { session_id: session, ...extra })).runId;
  const archive = async (token: string, session: string) => {
    const res = await g.k.inject({ method: 'POST', url: `/api/gateway/sessions/${session}/archive`, token });
    expect(res.statusCode, res.body).to.equal(200);
  };

  it('gives every row kind, session_kind, automation_id, role, occurrence_index, legacy; a chat turn row its workspace_root as /runs/{id}/workspace shows it', async () => {
    const id = await turn(g.bob, 'rows-1');
    const row = (await list(g.bob, 'root_only=true')).items.find((r) => r.run_id === id)!;
    expect(row).to.include({ kind: 'conversation', session_kind: 'chat', automation_id: null, role: null, occurrence_index: null, legacy: false, session_id: 'rows-1' });
    expect(row).to.not.have.property('archived');
    const ws = (await g.get(g.bob, `/api/gateway/runs/${id}/workspace`)).json<{ workspace_root: string }>();
    expect(row.workspace_root).to.be.a('string').and.equal(ws.workspace_root);
    // A non-admin sees his conversation folder relative to the data folder, never its absolute path.
    expect(row.workspace_root).to.match(/^workspaces\/session-/);
    // An admin's row shows the real folder, as the workspace route does for him.
    const adminId = await turn(g.admin, 'rows-admin');
    const adminRow = (await list(g.admin, 'root_only=true')).items.find((r) => r.run_id === adminId)!;
    expect(adminRow.workspace_root).to.equal((await g.get(g.admin, `/api/gateway/runs/${adminId}/workspace`)).json<{ workspace_root: string }>().workspace_root);
    expect(adminRow.workspace_root!.startsWith(g.k.dataDir) || adminRow.workspace_root!.includes('workspaces/session-')).to.equal(true);
  });

  it('shows a schedule parent as a legacy automation, never as a turn; its child rows carry no workspace_root', async () => {
    const res = await g.k.inject({ method: 'POST', url: '/api/gateway/runs/schedule', token: g.bob, payload: { bundle_id: 'tools', input_data: { calls: [] }, start_at: 'now', session_id: 'sched-1' } });
    expect(res.statusCode, res.body).to.equal(200);
    const parentId = res.json<{ run_id: string }>().run_id;
    await until(() => g.getRun(g.bob, parentId), (r) => r.status === 'completed', 60_000);
    const all = await list(g.bob, 'session_id=sched-1');
    const parent = all.items.find((r) => r.run_id === parentId)!;
    expect(parent).to.include({ session_kind: 'automation', role: 'legacy_schedule', legacy: true, automation_id: parentId, occurrence_index: null });
    expect(parent).to.not.have.property('workspace_root');
    const child = (await list(g.bob, `parent_run_id=${parentId}`)).items[0]!;
    expect(child).to.include({ session_kind: null, legacy: false, parent_run_id: parentId });
    expect(child).to.not.have.property('workspace_root');
    const turns = ids(await list(g.bob, 'root_only=true&session_id=sched-1'));
    expect(turns).to.not.include(parentId);
    expect(turns).to.not.include(child.run_id);
  });

  it('leaves archived sessions out of turn listings, lists only them with archived_only=true, marks their rows, and counts them in archived_sessions', async () => {
    const kept = await turn(g.eve, 'live-1');
    const gone = await turn(g.eve, 'old-1');
    expect((await list(g.eve, 'root_only=true')).archived_sessions).to.equal(0);
    await archive(g.eve, 'old-1');
    const turns = await list(g.eve, 'root_only=true');
    expect(ids(turns)).to.include(kept).and.not.include(gone);
    expect(turns.archived_sessions).to.equal(1);
    const archived = await list(g.eve, 'root_only=true&archived_only=true');
    expect(ids(archived)).to.deep.equal([gone]);
    expect(archived.items[0]).to.include({ archived: true });
    expect(archived.items[0]!.archived_at).to.match(/Z$/);
    expect(archived.archived_sessions).to.equal(1);
    // A listing that names the session still reads it; a listing that is not of turns keeps it too.
    expect(ids(await list(g.eve, 'root_only=true&session_id=old-1'))).to.deep.equal([gone]);
    expect(ids(await list(g.eve))).to.include(gone);
    // Every listing carries the count, whatever it filters.
    for (const q of ['', 'parent_run_id=nothing', 'session_id=live-1', 'archived_only=true', 'kind=all', 'session_kind=chat']) {
      expect((await list(g.eve, q)).archived_sessions, q).to.equal(1);
    }
  });

  it('lists docs sessions apart: turn listings default to conversations, kind=docs only docs, kind=all both; other listings show every purpose', async () => {
    const chat = await turn(g.bob, 'purpose-chat');
    const docs = await turn(g.bob, 'purpose-docs', { kind: 'docs' });
    const turns = ids(await list(g.bob, 'root_only=true'));
    expect(turns).to.include(chat).and.not.include(docs);
    const docsTurns = await list(g.bob, 'root_only=true&kind=docs');
    expect(ids(docsTurns)).to.deep.equal([docs]);
    expect(docsTurns.items[0]).to.include({ kind: 'docs' });
    expect(ids(await list(g.bob, 'root_only=true&kind=all'))).to.include(chat).and.include(docs);
    expect(ids(await list(g.bob, 'root_only=true&kind=conversation'))).to.not.include(docs);
    expect(ids(await list(g.bob))).to.include(chat).and.include(docs);
    // archived_sessions counts the listed purpose.
    await archive(g.bob, 'purpose-docs');
    expect((await list(g.bob, 'root_only=true&kind=docs')).archived_sessions).to.equal(1);
    expect(ids(await list(g.bob, 'root_only=true&kind=docs&archived_only=true'))).to.deep.equal([docs]);
    const conversations = (await list(g.bob, 'root_only=true')).archived_sessions;
    expect((await list(g.bob, 'root_only=true&kind=all')).archived_sessions).to.equal(conversations + 1);
  });

  it('filters by session_kind (a comma subset of chat, automation, occurrence, discussion) and refuses an unknown or empty one with 400', async () => {
    const id = await turn(g.bob, 'kinds-1');
    expect(ids(await list(g.bob, 'root_only=true&session_kind=chat,discussion'))).to.include(id);
    expect(ids(await list(g.bob, 'root_only=true&session_kind=discussion'))).to.not.include(id);
    const automation = await list(g.bob, 'session_kind=automation');
    expect(ids(automation)).to.not.include(id);
    expect(automation.items.every((r) => r.session_kind === 'automation')).to.equal(true);
    for (const bad of ['chat,bogus', 'Chat', ',', '<script>']) {
      const res = await g.get(g.bob, `/api/gateway/runs?session_kind=${encodeURIComponent(bad)}`);
      expect(res.statusCode, bad).to.equal(400);
      const detail = res.json<{ detail: { reason_code: string; field: string; message: string } }>().detail;
      expect(detail).to.include({ reason_code: 'invalid_request', field: 'query.session_kind' });
      expect(detail.message).to.contain('chat, automation, occurrence, discussion');
    }
    expect((await g.get(g.bob, '/api/gateway/runs?kind=chat')).statusCode).to.equal(400);
  });

  it("never lists another account's runs or counts its archived sessions, whatever the filters", async () => {
    const bobs = await turn(g.bob, 'secret-session');
    await archive(g.bob, 'secret-session');
    for (const q of ['session_id=secret-session', 'session_id=secret-session&archived_only=true', 'root_only=true&archived_only=true&kind=all', `parent_run_id=${bobs}`, 'kind=all']) {
      const l = await list(g.eve, q);
      expect(ids(l), q).to.not.include(bobs);
      expect(l.items.every((r) => r.session_id !== 'secret-session'), q).to.equal(true);
    }
    expect((await g.get(g.eve, `/api/gateway/runs/${bobs}`)).statusCode).to.equal(404);
    // Eve's own session of the same id is hers alone: not archived.
    const eves = await turn(g.eve, 'secret-session');
    const mine = await list(g.eve, 'root_only=true');
    expect(ids(mine)).to.include(eves);
    expect(mine.items.find((r) => r.run_id === eves)).to.not.have.property('archived');
  });

  it('lists newest first and stops at limit after filtering (a page of turns skips non-turns)', async () => {
    const older = await turn(g.eve, 'page-1');
    const res = await g.k.inject({ method: 'POST', url: '/api/gateway/runs/schedule', token: g.eve, payload: { bundle_id: 'tools', input_data: { calls: [] }, start_at: new Date(Date.now() + 86_400_000).toISOString(), session_id: 'page-sched' } });
    expect(res.statusCode, res.body).to.equal(200);
    const newer = await turn(g.eve, 'page-2');
    expect(ids(await list(g.eve, 'root_only=true&limit=2'))).to.deep.equal([newer, older]);
    expect(ids(await list(g.eve, 'limit=1'))).to.deep.equal([newer]);
    expect((await g.get(g.eve, '/api/gateway/runs?limit=0')).statusCode).to.equal(400);
    expect((await g.get(g.eve, '/api/gateway/runs?limit=1001')).statusCode).to.equal(400);
  });

  it('answers 401 without a token and 400 for an over-long session_id', async () => {
    expect((await g.k.inject({ url: '/api/gateway/runs' })).statusCode).to.equal(401);
    expect((await g.get(g.bob, `/api/gateway/runs?session_id=${'s'.repeat(300)}`)).statusCode).to.equal(400);
  });
});
