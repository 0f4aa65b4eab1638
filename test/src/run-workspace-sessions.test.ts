import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { bootWorkspaceGateway, call, type WorkspaceGateway } from './helpers/run-workspace.js';

/**
 * Conversation folders (issue 12 item 6): a run started with a session_id works in the session's
 * folder, shared by every run of that session (and their child runs); a run without one gets its
 * own folder; the same session id of another account is another folder.
 */
describe('run workspace: conversation folders shared by a session (issue 12 item 6)', function () {
  this.timeout(180_000);
  let g: WorkspaceGateway;
  before(async () => {
    g = await bootWorkspaceGateway();
  });
  after(() => g?.stop());

  it("shares the session's folder between its runs; another session, a run without one and another account each get their own", async () => {
    const first = await g.runTools(g.bob, [call('w', 'write_file', { path: 'notes/plan.md', content: 'step 1' })], { session_id: 'chat-1' });
    expect(first.results.get('w')!.success).to.equal(true);
    const second = await g.runTools(g.bob, [call('r', 'read_file', { path: 'notes/plan.md' }), call('e', 'edit_file', { path: 'notes/plan.md', old: 'step 1', new: 'step 2' })], { session_id: 'chat-1' });
    expect(second.results.get('r')!.output, 'the second turn reads what the first wrote').to.equal('step 1');
    expect(second.results.get('e')!.success).to.equal(true);
    const a = await g.gatewayWorkspace(g.bob, first.runId);
    const b = await g.gatewayWorkspace(g.bob, second.runId);
    expect(a).to.include({ kind: 'session' });
    expect(b.path).to.equal(a.path);
    expect(a.path).to.match(/^workspaces\/session-[0-9a-f]+$/);
    expect(readFileSync(path.join(g.k.dataDir, String(a.path), 'notes', 'plan.md'), 'utf8')).to.equal('step 2');

    const other = await g.runTools(g.bob, [call('r', 'read_file', { path: 'notes/plan.md' })], { session_id: 'chat-2' });
    expect(other.results.get('r')!.success, 'another session does not see it').to.equal(false);
    const alone = await g.runTools(g.bob, [call('r', 'read_file', { path: 'notes/plan.md' })]);
    expect(alone.results.get('r')!.success).to.equal(false);
    expect(await g.gatewayWorkspace(g.bob, alone.runId)).to.include({ kind: 'run', path: `workspaces/run-${alone.runId}` });
    const eve = await g.runTools(g.eve, [call('r', 'read_file', { path: 'notes/plan.md' })], { session_id: 'chat-1' });
    expect(eve.results.get('r')!.success, "eve's chat-1 is not bob's").to.equal(false);
    expect((await g.gatewayWorkspace(g.eve, eve.runId)).path).to.not.equal(a.path);

    // Bob's own conversation folder, reached by its real path from another of his runs, is his folder: readable.
    const real = realpathSync(path.join(g.k.dataDir, String(a.path)));
    const byPath = await g.runTools(g.bob, [call('r', 'read_file', { path: path.join(real, 'notes', 'plan.md') })], { session_id: 'chat-1' });
    expect(byPath.results.get('r')!.output).to.equal('step 2');
    // The other session's run cannot reach it by its real path either.
    const sneaky = await g.runTools(g.bob, [call('r', 'read_file', { path: path.join(real, 'notes', 'plan.md') })], { session_id: 'chat-2' });
    expect(sneaky.results.get('r')!.success).to.equal(false);
  });

  it("shows the session's folder on every run's workspace info and listing, and keeps it when the runs end", async () => {
    const one = await g.runTools(g.bob, [call('w', 'write_file', { path: 'a.txt', content: 'a' })], { session_id: 'chat-3' });
    const two = await g.runTools(g.bob, [call('w', 'write_file', { path: 'b.txt', content: 'b' })], { session_id: 'chat-3' });
    for (const runId of [one.runId, two.runId]) {
      const info = (await g.get(g.bob, `/api/gateway/runs/${runId}/workspace`)).json<Record<string, unknown>>();
      expect(info).to.include({ kind: 'session', session_id: 'chat-3', exists: true });
      const names = (await g.get(g.bob, `/api/gateway/runs/${runId}/workspace/files`)).json<{ entries: Array<{ name: string }> }>().entries.map((e) => e.name);
      expect(names).to.deep.equal(['a.txt', 'b.txt']);
    }
    const folder = await g.folderOf(g.bob, one.runId);
    expect(existsSync(path.join(folder, 'a.txt'))).to.equal(true);
  });
});
