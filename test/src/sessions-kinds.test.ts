import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { open } from 'lmdb';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { toolCallsFlow } from './helpers/flow-builder.js';
import { until } from './helpers/gateway-runs.js';

/**
 * Issue 14 item 1: session purpose marks (seed §2.1 `kind`, §2.8; reference gateway-surfaces §4.2),
 * per account plane: `kind: docs` marks a session, a run of the `docs-qa` bundle marks it whatever the
 * client sent, and the one-time migration `docs_qa_bundle_v1` marks sessions from before marks existed
 * (and never runs twice). Over a real data directory across restarts.
 */

type Row = { run_id: string; session_id: string; kind: string };

describe('sessions: purpose marks and the docs_qa_bundle_v1 migration (issue 14 item 1)', function () {
  this.timeout(300_000);
  let dataDir = '';
  let k: TestKernel | null = null;
  let bob = '';
  let eve = '';
  const boot = async () => (k = await createTestKernel({ dataDir, plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] }));
  const start = async (token: string, payload: Record<string, unknown>) => k!.inject({ method: 'POST', url: '/api/gateway/runs/start', token, payload });
  const turn = async (token: string, payload: Record<string, unknown>) => {
    const res = await start(token, { input_data: { calls: [] }, ...payload });
    expect(res.statusCode, res.body).to.equal(200);
    const id = res.json<{ run_id: string }>().run_id;
    await until(async () => (await k!.inject({ url: `/api/gateway/runs/${id}`, token })).json<{ status: string }>().status, (s) => s === 'completed', 60_000);
    return id;
  };
  const kindOf = async (token: string, session: string) => {
    const res = await k!.inject({ url: `/api/gateway/runs?session_id=${encodeURIComponent(session)}`, token });
    expect(res.statusCode, res.body).to.equal(200);
    const kinds = new Set(res.json<{ items: Row[] }>().items.map((r) => r.kind));
    expect(kinds.size, `one purpose for session ${session}`).to.equal(1);
    return [...kinds][0];
  };
  const docsTurns = async (token: string) => (await k!.inject({ url: '/api/gateway/runs?root_only=true&kind=docs', token })).json<{ items: Row[] }>().items.map((r) => r.session_id);

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'keel-session-kinds-'));
    await boot();
    bob = await createAccount(k!, 'bob');
    eve = await createAccount(k!, 'eve');
    for (const token of [bob, eve]) {
      await uploadBundleAs(k!, token, 'tools', toolCallsFlow());
      await uploadBundleAs(k!, token, 'docs-qa', toolCallsFlow());
    }
  });
  after(async () => {
    await k?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('marks a session docs on a kind: docs start; its later turns without kind are docs too', async () => {
    await turn(bob, { bundle_id: 'tools', session_id: 'ask-1', kind: 'docs' });
    await turn(bob, { bundle_id: 'tools', session_id: 'ask-1' });
    expect(await kindOf(bob, 'ask-1')).to.equal('docs');
    await turn(bob, { bundle_id: 'tools', session_id: 'chat-1' });
    expect(await kindOf(bob, 'chat-1')).to.equal('conversation');
  });

  it('marks the session of a docs-qa run docs whatever the client sent', async () => {
    await turn(bob, { bundle_id: 'docs-qa', session_id: 'qa-1' });
    expect(await kindOf(bob, 'qa-1')).to.equal('docs');
    expect(await docsTurns(bob)).to.include('qa-1');
  });

  it('marks the session of a schedule with kind: docs, or of the docs-qa bundle, as a start does', async () => {
    for (const [session, payload] of [['sched-docs', { bundle_id: 'tools', kind: 'docs' }], ['sched-qa', { bundle_id: 'docs-qa' }], ['sched-chat', { bundle_id: 'tools' }]] as const) {
      const res = await k!.inject({ method: 'POST', url: '/api/gateway/runs/schedule', token: bob, payload: { ...payload, session_id: session, start_at: 'now', input_data: { calls: [] } } });
      expect(res.statusCode, res.body).to.equal(200);
    }
    expect(await kindOf(bob, 'sched-docs')).to.equal('docs');
    expect(await kindOf(bob, 'sched-qa')).to.equal('docs');
    expect(await kindOf(bob, 'sched-chat')).to.equal('conversation');
  });

  it('keeps marks per account plane: the same session id of another account stays a conversation', async () => {
    await turn(eve, { bundle_id: 'tools', session_id: 'ask-1' });
    expect(await kindOf(eve, 'ask-1')).to.equal('conversation');
    expect(await docsTurns(eve)).to.not.include('ask-1');
  });

  it('refuses kind other than docs, and docs without a session_id, with 400 and marks nothing', async () => {
    for (const [payload, message] of [
      [{ kind: 'docs' }, /needs a session_id/],
      [{ kind: 'conversation', session_id: 'bad-1' }, /only 'docs'/],
      [{ kind: 'DOCS', session_id: 'bad-1' }, /only 'docs'/],
    ] as const) {
      const res = await start(bob, { bundle_id: 'tools', input_data: { calls: [] }, ...payload });
      expect(res.statusCode, res.body).to.equal(400);
      expect(res.json<{ detail: { field: string; message: string } }>().detail.message).to.match(message);
    }
    expect((await k!.inject({ url: '/api/gateway/runs?session_id=bad-1', token: bob })).json<{ items: Row[] }>().items).to.deep.equal([]);
  });

  it('docs_qa_bundle_v1 marks sessions of docs-qa root runs made before marks existed, once, and keeps its record across restarts', async () => {
    await turn(eve, { bundle_id: 'docs-qa', session_id: 'old-qa' });
    await turn(eve, { bundle_id: 'tools', session_id: 'old-chat' });
    await k!.stop();

    // The data as a build before purpose marks left it: no marks, no migration record.
    const clear = async (names: string[]) => {
      const env = open({ path: path.join(dataDir, 'db'), maxDbs: 512, overlappingSync: false, compression: false });
      for (const name of names) env.openDB({ name }).clearSync();
      await env.close();
    };
    await clear(['gateway-runs:session-kinds', 'gateway-runs:session-kinds-migrations']);
    await boot();
    expect(await kindOf(eve, 'old-qa')).to.equal('docs');
    expect(await kindOf(eve, 'old-chat')).to.equal('conversation');
    expect(await kindOf(bob, 'qa-1')).to.equal('docs');
    expect(await kindOf(bob, 'ask-1'), 'a kind: docs session from before marks').to.equal('docs');
    await k!.stop();

    // The migration ran and recorded it: with the marks lost again but the record kept, it does not run a second time.
    await clear(['gateway-runs:session-kinds']);
    await boot();
    expect(await kindOf(eve, 'old-qa')).to.equal('conversation');
    // A new docs-qa run marks its session as always.
    await turn(eve, { bundle_id: 'docs-qa', session_id: 'old-qa' });
    expect(await kindOf(eve, 'old-qa')).to.equal('docs');
  });
});
