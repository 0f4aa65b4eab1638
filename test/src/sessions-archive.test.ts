import { expect } from 'chai';
import type { InjectResponse } from '@keel/plugin-sdk/testing';
import { bootWorkspaceGateway, type WorkspaceGateway } from './helpers/run-workspace.js';

/**
 * Issue 14 item 1: `POST /sessions/{id}/archive|unarchive` (seed §3, §4.9, §7; reference
 * gateway-surfaces §4.1) through the HTTP API: the answers, repeats, what archiving keeps, and every
 * way around the owner rule (another account's session, a non-admin naming another account, hostile ids).
 */

type Answer = { session_id: string; archived: boolean; archived_at: string | null; archived_by: string | null; changed: boolean };
type Detail = { detail: { reason_code: string; message: string; field?: string } };
type Row = { run_id: string; session_id: string; archived?: boolean; archived_at?: string };
type Listing = { items: Row[]; archived_sessions: number };

describe('sessions: archive and unarchive (issue 14 item 1)', function () {
  this.timeout(300_000);
  let g: WorkspaceGateway;
  before(async () => {
    g = await bootWorkspaceGateway();
  });
  after(async () => {
    await g?.stop();
  });

  const post = (token: string, url: string) => g.k.inject({ method: 'POST', url, token });
  const archive = (token: string, id: string, query = '') => post(token, `/api/gateway/sessions/${encodeURIComponent(id)}/archive${query}`);
  const unarchive = (token: string, id: string, query = '') => post(token, `/api/gateway/sessions/${encodeURIComponent(id)}/unarchive${query}`);
  const list = async (token: string, query: string) => {
    const res = await g.get(token, `/api/gateway/runs?${query}`);
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<Listing>();
  };
  /** A completed turn of `session` for the token's account. */
  const turn = async (token: string, session: string) => (await g.runTools(token, [], { session_id: session })).runId;
  const expectNotFound = (res: InjectResponse, id: string) => {
    expect(res.statusCode, res.body).to.equal(404);
    expect(res.json<Detail>()).to.deep.equal({ detail: { reason_code: 'session_not_found', message: `Session ${id} does not exist.` } });
  };

  it('archives a session: {session_id, archived: true, archived_at, archived_by, changed: true}; a repeat answers changed: false with the stored mark', async () => {
    await turn(g.bob, 'arch-1');
    const first = await archive(g.bob, 'arch-1');
    expect(first.statusCode, first.body).to.equal(200);
    const a = first.json<Answer>();
    expect(a).to.include({ session_id: 'arch-1', archived: true, archived_by: 'default:bob', changed: true });
    expect(a.archived_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const again = await archive(g.bob, 'arch-1');
    expect(again.statusCode).to.equal(200);
    expect(again.json<Answer>()).to.deep.equal({ ...a, changed: false });
  });

  it('unarchives: {archived: false, archived_at: null, archived_by: null, changed: true}; a repeat (or a session never archived) answers changed: false', async () => {
    await turn(g.bob, 'arch-2');
    expect((await archive(g.bob, 'arch-2')).statusCode).to.equal(200);
    const res = await unarchive(g.bob, 'arch-2');
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json<Answer>()).to.deep.equal({ session_id: 'arch-2', archived: false, archived_at: null, archived_by: null, changed: true });
    expect((await unarchive(g.bob, 'arch-2')).json<Answer>()).to.deep.equal({ session_id: 'arch-2', archived: false, archived_at: null, archived_by: null, changed: false });
    // Archived again after an unarchive: a new mark.
    const again = (await archive(g.bob, 'arch-2')).json<Answer>();
    expect(again).to.include({ archived: true, changed: true });
  });

  it('keeps the runs, their records and the session listing of an archived session', async () => {
    const runId = await turn(g.bob, 'arch-keep');
    expect((await archive(g.bob, 'arch-keep')).statusCode).to.equal(200);
    const run = await g.get(g.bob, `/api/gateway/runs/${runId}`);
    expect(run.statusCode).to.equal(200);
    expect(run.json<{ status: string }>().status).to.equal('completed');
    expect((await g.get(g.bob, `/api/gateway/runs/${runId}/ledger`)).json<{ items: unknown[] }>().items.length).to.be.greaterThan(0);
    const bySession = await list(g.bob, 'session_id=arch-keep');
    expect(bySession.items.map((r) => r.run_id)).to.deep.equal([runId]);
    expect(bySession.items[0]).to.include({ archived: true });
  });

  it("answers another account's session 404 session_not_found, archives nothing there, and the same for an unknown id", async () => {
    await turn(g.bob, 'bobs-private');
    for (const act of [archive, unarchive]) expectNotFound(await act(g.eve, 'bobs-private'), 'bobs-private');
    expectNotFound(await archive(g.eve, 'never-was'), 'never-was');
    // Bob's session is untouched by eve's attempt.
    expect((await list(g.bob, 'session_id=bobs-private')).items[0]).to.not.have.property('archived');
    expect((await list(g.bob, 'root_only=true')).items.map((r) => r.session_id)).to.include('bobs-private');
  });

  it("refuses a non-admin naming another account's session with ?account= (403), whatever the form, before any lookup", async () => {
    await turn(g.bob, 'bob-named');
    for (const account of ['bob', 'default:bob', 'nobody-at-all']) {
      const res = await archive(g.eve, 'bob-named', `?account=${encodeURIComponent(account)}`);
      expect(res.statusCode, `${account}: ${res.body}`).to.equal(403);
      expect(res.json<{ detail: string }>().detail).to.match(/Only an admin may act on another account's session/);
    }
    expect((await list(g.bob, 'session_id=bob-named')).items[0]).to.not.have.property('archived');
    // Naming oneself is one's own session.
    await turn(g.eve, 'eve-own');
    for (const account of ['eve', 'default:eve', 'me']) {
      expect((await archive(g.eve, 'eve-own', `?account=${account}`)).statusCode, account).to.equal(200);
    }
  });

  it("lets an admin archive another account's session only by naming the owner; unnamed it is the admin's own plane (404)", async () => {
    await turn(g.bob, 'bob-by-admin');
    expectNotFound(await archive(g.admin, 'bob-by-admin'), 'bob-by-admin');
    const res = await archive(g.admin, 'bob-by-admin', '?account=default:bob');
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json<Answer>()).to.include({ archived: true, archived_by: 'default:admin', changed: true });
    expect((await list(g.bob, 'session_id=bob-by-admin')).items[0]).to.include({ archived: true });
    expect((await unarchive(g.admin, 'bob-by-admin', '?account=bob')).json<Answer>()).to.include({ archived: false, changed: true });
    const unknown = await archive(g.admin, 'bob-by-admin', '?account=no-such-account');
    expect(unknown.statusCode).to.equal(404);
    expect(unknown.json<Detail>().detail.reason_code).to.equal('account_not_found');
    const wrongTenant = await archive(g.admin, 'bob-by-admin', '?account=elsewhere:bob');
    expect(wrongTenant.statusCode).to.equal(404);
  });

  it('refuses a blank id with 422 invalid_request, an over-long id with 400, and answers hostile ids 404 without touching anything', async () => {
    const blank = await archive(g.bob, ' ');
    expect(blank.statusCode, blank.body).to.equal(422);
    expect(blank.json<Detail>().detail).to.include({ reason_code: 'invalid_request', field: 'params.session_id' });
    const long = await archive(g.bob, 'x'.repeat(300));
    expect(long.statusCode, long.body).to.equal(400);
    // A bare `..` segment is resolved away before routing: no session route takes it.
    expect((await archive(g.bob, '..')).statusCode).to.equal(404);
    for (const id of ['../../etc/passwd', 'a/b', '%00', '\u0000', "'; DROP TABLE", 'bobs-private\u0000x', '\uffff']) {
      expectNotFound(await archive(g.bob, id), id);
    }
    // Another account's session id with a hostile suffix or prefix is still not found.
    expectNotFound(await archive(g.eve, 'bobs-private '), 'bobs-private ');
  });

  it('answers 401 without a token', async () => {
    const res = await g.k.inject({ method: 'POST', url: '/api/gateway/sessions/arch-1/archive' });
    expect(res.statusCode).to.equal(401);
  });

  it('lists the routes in /openapi.json with their answer', async () => {
    const spec = (await g.get(g.admin, '/openapi.json')).json<{ paths: Record<string, Record<string, unknown>> }>();
    expect(spec.paths).to.have.property('/api/gateway/sessions/{session_id}/archive');
    expect(spec.paths).to.have.property('/api/gateway/sessions/{session_id}/unarchive');
  });
});
