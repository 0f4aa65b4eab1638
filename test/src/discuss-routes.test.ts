/**
 * Discussions (seed 000 §4.8, reference gateway-surfaces §3.8) through the HTTP API on the real boot
 * path with real LMDB: occurrences made with `automation.run_now`, then `POST .../discuss` — the
 * run, its tags, its seed transcript, its workspace; the same request answered again, identity
 * conflicts, 404s for an unknown occurrence and another account's automation, 422s; later turns
 * through `POST /runs/start` in the discussion session (transcript refused, tags re-stamped,
 * history seeded from the discussion), and a session id that is no discussion of the caller's.
 */
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { automationsPlugin } from '@keel/plugin-automations';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { edges, node } from './helpers/flow-builder.js';
import type { HistoryRun, ReplayedMessage } from './helpers/history.js';
import { until } from './helpers/gateway-runs.js';

/** start → end: the prompt is the answer, and the context the run started with is in its output (what was seeded). */
const echoFlow = {
  id: 'echo',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ['prompt', 'context'] }), node({ id: 'end', type: 'on_flow_end', inputs: ['response', 'context'] })],
  edges: edges('start -> end', 'start.prompt -> end.response', 'start.context -> end.context'),
};

/** A flow whose run fails (a node type no plugin provides). */
const failFlow = {
  id: 'fail',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: [] }), node({ id: 'warp', type: 'quantum_teleport', inputs: [], outputs: [] }), node({ id: 'end', type: 'on_flow_end', inputs: [] })],
  edges: edges('start -> warp', 'warp -> end'),
};

/** start(file_path, content) → write_file → end(response: the path written). */
const writeFlow = {
  id: 'write',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['file_path', 'content'] }),
    node({ id: 'write', type: 'write_file', inputs: ['file_path', 'content'], outputs: ['bytes', 'file_path'] }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
  ],
  edges: edges('start -> write', 'write -> end', 'start.file_path -> write.file_path', 'start.content -> write.content', 'write.file_path -> end.response'),
};

interface Occurrence { index: number; run_id: string; status: string; user_turn: string; answer: string; failure: { message: string } | null }
interface Discussion { session_id: string; run_id: string; session_kind: string; workspace_root: string | null; mounted_workspace: string | null }
interface ErrorBody { detail: { reason_code: string; message: string; field?: string } }
interface RunRow { run_id: string; session_kind: string | null; automation_id: string | null; role: string | null; session_id: string }

describe('discuss: discussion sessions on occurrences', function () {
  this.timeout(900_000);
  let k: TestKernel;
  let bob = '';
  let carol = '';
  let echoAutomation = '';
  let failAutomation = '';

  const api = (method: 'GET' | 'POST', url: string, token: string | undefined, payload?: unknown) => k.inject({ method, url: `/api/gateway${url}`, ...(token ? { token } : {}), ...(payload === undefined ? {} : { payload }) });

  async function createAutomation(token: string, requestId: string, bundleId: string, prompt: string, inputs: Record<string, unknown> = {}): Promise<string> {
    const res = await api('POST', '/automations', token, {
      request_id: requestId,
      title: `${bundleId} automation`,
      target: { bundle_ref: `${bundleId}@1.0.0`, flow_id: bundleId, input_data: { prompt, ...inputs } },
      trigger: { source_id: 'manual', source_version: 1, config: {} },
      policy: { retry: { max_attempts: 1 } },
    });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<{ automation_id: string }>().automation_id;
  }

  async function occurrences(token: string, id: string): Promise<Occurrence[]> {
    const res = await api('GET', `/automations/${id}/occurrences`, token);
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<{ items: Occurrence[] }>().items;
  }

  /** `automation.run_now`, then waits until occurrence `index` has finished. */
  async function fire(token: string, id: string, index: number): Promise<Occurrence> {
    const res = await api('POST', `/automations/${id}/commands`, token, { command_id: `fire-${id}-${index}`, type: 'automation.run_now' });
    expect(res.statusCode, res.body).to.equal(200);
    return until(async () => (await occurrences(token, id)).find((o) => o.index === index), {
      what: `occurrence ${index} of ${id} to finish`,
      ok: (o) => o !== undefined && ['completed', 'failed'].includes(o.status),
      deadline: 180_000,
    }) as Promise<Occurrence>;
  }

  const discuss = (token: string | undefined, id: string, body: unknown) => api('POST', `/automations/${id}/discuss`, token, body);
  const run = async (token: string, runId: string) => (await api('GET', `/runs/${runId}`, token)).json<HistoryRun & { session_kind?: string }>();
  const finished = (token: string, runId: string) => until(() => run(token, runId), { what: `run ${runId} to complete`, ok: (r) => r.status === 'completed', deadline: 180_000 });
  const sessionRows = async (token: string, sessionId: string) => (await api('GET', `/runs?session_id=${encodeURIComponent(sessionId)}`, token)).json<{ items: RunRow[] }>().items;

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, automationsPlugin] });
    bob = await createAccount(k, 'bob');
    carol = await createAccount(k, 'carol');
    for (const token of [k.adminToken, bob, carol]) {
      await uploadBundleAs(k, token, 'echo', echoFlow);
      await uploadBundleAs(k, token, 'fail', failFlow);
      await uploadBundleAs(k, token, 'write', writeFlow);
    }
    echoAutomation = await createAutomation(bob, 'echo-1', 'echo', 'Summarise my inbox');
    await fire(bob, echoAutomation, 1);
    await fire(bob, echoAutomation, 2);
    failAutomation = await createAutomation(bob, 'fail-1', 'fail', 'Teleport');
    await fire(bob, failAutomation, 1);
  });
  after(() => k?.stop());

  it('opens a discussion: its session, run and folders, tagged as a discussion of the automation', async () => {
    const res = await discuss(bob, echoAutomation, { request_id: 'd1', occurrence_index: 2, prompt: 'Why two runs?' });
    expect(res.statusCode, res.body).to.equal(200);
    const d = res.json<Discussion>();
    expect(d.session_kind).to.equal('discussion');
    expect(d.session_id).to.equal(`discussion-session:${d.run_id}`);
    expect(d.run_id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const occurrence = (await occurrences(bob, echoAutomation)).find((o) => o.index === 2)!;
    expect(d.mounted_workspace, 'the occurrence folder').to.be.a('string');
    expect(existsSync(path.join(k.dataDir, d.mounted_workspace!))).to.equal(true);
    expect(d.workspace_root).to.be.a('string').and.not.equal(d.mounted_workspace);
    const workspace = (await api('GET', `/runs/${occurrence.run_id}/workspace`, bob)).json<{ workspace_root: string }>();
    expect(workspace.workspace_root).to.contain(path.basename(d.mounted_workspace!));

    const rows = await sessionRows(bob, d.session_id);
    expect(rows.map((r) => [r.run_id, r.session_kind, r.automation_id, r.role])).to.deep.equal([[d.run_id, 'discussion', echoAutomation, 'discussion']]);
    const done = await finished(bob, d.run_id);
    expect(done.output?.response).to.equal('Why two runs?');
  });

  it("seeds the first run with the automation's conversation up to the occurrence: one pair each, oldest first, summary line first", async () => {
    const d = (await discuss(bob, echoAutomation, { request_id: 'd-seed', occurrence_index: 2, prompt: 'And now?' })).json<Discussion>();
    const inputs = (await api('GET', `/runs/${d.run_id}/input_data`, bob)).json<{ prompt: string; context: { messages: ReplayedMessage[] } }>();
    const [o1, o2] = (await occurrences(bob, echoAutomation)).sort((a, b) => a.index - b.index);
    const messages = inputs.context.messages;
    expect(messages.map((m) => m.role)).to.deep.equal(['user', 'assistant', 'user', 'assistant']);
    expect(messages[0]!.content).to.match(/^\[Discussion of automation "echo automation" \(/);
    expect((messages[0]!.content as string).split('\n').slice(1).join('\n')).to.equal(o1!.user_turn);
    expect(messages[1]!.content).to.equal(o1!.answer);
    expect(messages[2]!.content).to.equal(o2!.user_turn);
    expect(messages[0]!.content).to.contain(d.mounted_workspace!).and.to.contain('read-only');
    expect(inputs.prompt).to.equal('And now?');
    // Only up to the occurrence discussed.
    const d1 = (await discuss(bob, echoAutomation, { request_id: 'd-seed-1', occurrence_index: 1, prompt: 'First?' })).json<Discussion>();
    const first = (await api('GET', `/runs/${d1.run_id}/input_data`, bob)).json<{ context: { messages: ReplayedMessage[] } }>();
    expect(first.context.messages).to.have.length(2);
  });

  it("answers a failed occurrence with its failure's message", async () => {
    const [failed] = await occurrences(bob, failAutomation);
    expect(failed!.status).to.equal('failed');
    const d = (await discuss(bob, failAutomation, { request_id: 'f1', occurrence_index: 1, prompt: 'What broke?' })).json<Discussion>();
    const inputs = (await api('GET', `/runs/${d.run_id}/input_data`, bob)).json<{ context: { messages: ReplayedMessage[] } }>();
    expect(inputs.context.messages).to.have.length(2);
    expect(inputs.context.messages[1]!.content).to.equal(failed!.failure!.message);
  });

  it('answers the same request again with the same discussion and no new run; another request under the same id is 409 identity_conflict', async () => {
    const body = { request_id: 'again', occurrence_index: 1, prompt: 'Once' };
    const first = (await discuss(bob, echoAutomation, body)).json<Discussion>();
    const second = await discuss(bob, echoAutomation, body);
    expect(second.statusCode).to.equal(200);
    expect(second.json<Discussion>()).to.deep.equal(first);
    expect(await sessionRows(bob, first.session_id)).to.have.length(1);
    for (const other of [{ ...body, prompt: 'Twice' }, { ...body, occurrence_index: 2 }]) {
      const conflict = await discuss(bob, echoAutomation, other);
      expect(conflict.statusCode, conflict.body).to.equal(409);
      expect(conflict.json<ErrorBody>().detail).to.include({ reason_code: 'identity_conflict', field: 'request_id' });
    }
  });

  it("answers 404 occurrence_not_found for an unknown index, and 404 automation_not_found for another account's automation", async () => {
    const unknown = await discuss(bob, echoAutomation, { request_id: 'nope', occurrence_index: 99, prompt: 'x' });
    expect(unknown.statusCode).to.equal(404);
    expect(unknown.json<ErrorBody>().detail.reason_code).to.equal('occurrence_not_found');
    const stranger = await discuss(carol, echoAutomation, { request_id: 'spy', occurrence_index: 1, prompt: 'Show me' });
    expect(stranger.statusCode).to.equal(404);
    expect(stranger.json<ErrorBody>().detail.reason_code).to.equal('automation_not_found');
    // The same request id as bob's discussion: carol learns nothing either.
    const taken = await discuss(carol, echoAutomation, { request_id: 'again', occurrence_index: 1, prompt: 'Once' });
    expect(taken.statusCode).to.equal(404);
    const none = await discuss(bob, '00000000-0000-5000-8000-000000000000', { request_id: 'x', occurrence_index: 1, prompt: 'x' });
    expect(none.json<ErrorBody>().detail.reason_code).to.equal('automation_not_found');
  });

  it('refuses empty, missing and unknown fields with 422 invalid_request naming the field, and no token with 401', async () => {
    const cases: Array<[unknown, string]> = [
      [{ request_id: '  ', occurrence_index: 1, prompt: 'x' }, 'request_id'],
      [{ request_id: 'r', occurrence_index: 1, prompt: ' ' }, 'prompt'],
      [{ request_id: 'r', occurrence_index: 0, prompt: 'x' }, 'occurrence_index'],
      [{ request_id: 'r', occurrence_index: 1 }, 'prompt'],
      [{ request_id: 'r', occurrence_index: 1, prompt: 'x', context: { messages: [] } }, 'context'],
    ];
    for (const [body, field] of cases) {
      const res = await discuss(bob, echoAutomation, body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).to.equal(422);
      const detail = res.json<ErrorBody>().detail;
      expect(detail.reason_code).to.equal('invalid_request');
      expect(`${detail.field ?? ''} ${detail.message}`, JSON.stringify(body)).to.contain(field);
    }
    const spec = (await k.inject({ url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { requestBody?: unknown }>> }>();
    expect(spec.paths['/api/gateway/automations/{automation_id}/discuss']?.post?.requestBody, 'the route in /openapi.json').to.not.equal(undefined);
    const anonymous = await discuss(undefined, echoAutomation, { request_id: 'r', occurrence_index: 1, prompt: 'x' });
    expect(anonymous.statusCode).to.equal(401);
    expect(anonymous.json<ErrorBody>().detail.reason_code).to.equal('unauthorized');
  });

  /** Opens a discussion of a write_file automation of `token`'s account; answers the discussion and the real folders. */
  async function writerDiscussion(token: string, requestId: string) {
    const writer = await createAutomation(token, requestId, 'write', 'Write a note', { file_path: 'note.txt', content: 'from the occurrence' });
    const occurrence = await fire(token, writer, 1);
    expect(occurrence.status, JSON.stringify(occurrence)).to.equal('completed');
    const d = (await discuss(token, writer, { request_id: 'w1', occurrence_index: 1, prompt: 'Look at the note' })).json<Discussion>();
    const first = await finished(token, d.run_id);
    return { d, first, mount: path.join(k.dataDir, d.mounted_workspace!), own: path.join(k.dataDir, d.workspace_root!) };
  }

  /** A later write_file turn in the discussion session; answers the run once ended (a refused write ends it with `output.error`). */
  async function writeTurn(token: string, d: Discussion, file: string, extra: Record<string, unknown> = {}) {
    const res = await api('POST', '/runs/start', token, { bundle_id: 'write', session_id: d.session_id, input_data: { file_path: file, content: 'overwrite', ...extra } });
    expect(res.statusCode, res.body).to.equal(200);
    const runId = res.json<{ run_id: string }>().run_id;
    const ended = await until(() => run(token, runId), { what: `run ${runId} to end`, ok: (r) => r.status === 'completed' || r.status === 'failed', deadline: 180_000 });
    return { ended, error: String((ended.output as { error?: unknown } | null)?.error ?? ended.error ?? '') };
  }

  it("mounts the automation's folder read-only: the discussion writes in its own folder, a write into the mount is refused (an admin's: read-only)", async () => {
    const { d, first, mount, own } = await writerDiscussion(k.adminToken, 'write-admin');
    // The frozen inputs write note.txt again: into the discussion's own folder, never the automation's.
    expect(first.output?.response).to.equal('note.txt');
    expect(readFileSync(path.join(own, 'note.txt'), 'utf8')).to.equal('from the occurrence');
    const workspace = (await api('GET', `/runs/${d.run_id}/workspace`, k.adminToken)).json<{ workspace_summary: string; workspace_clamped: unknown[] }>();
    expect(workspace.workspace_summary, JSON.stringify(workspace)).to.contain(`${d.mounted_workspace} (ro)`);
    expect(workspace.workspace_clamped).to.deep.equal([]);

    const intoMount = await writeTurn(k.adminToken, d, path.join(mount, 'note.txt'));
    expect(intoMount.error).to.match(/may only read/);
    expect(readFileSync(path.join(mount, 'note.txt'), 'utf8')).to.equal('from the occurrence');
    // A client workspace choice does not widen it: the discussion's layer replaces it.
    const widened = await writeTurn(k.adminToken, d, path.join(mount, 'x.txt'), { workspace: { posture: 'any_except_denied', default_mode: 'rw', folders: [{ path: mount, mode: 'rw' }] } });
    expect(widened.error).to.match(/may only read/);
    expect(existsSync(path.join(mount, 'x.txt'))).to.equal(false);
    const outside = await writeTurn(k.adminToken, d, path.join(k.dataDir, 'stolen.txt'));
    expect(outside.error).to.match(/workspace policy/);
    expect(existsSync(path.join(k.dataDir, 'stolen.txt'))).to.equal(false);
  });

  it("keeps a non-admin's discussion within his own folder (the account level caps the mount: listed, not reachable)", async () => {
    const { d, mount } = await writerDiscussion(bob, 'write-bob');
    const workspace = (await api('GET', `/runs/${d.run_id}/workspace`, bob)).json<{ workspace_summary: string }>();
    expect(workspace.workspace_summary).to.contain(`${d.mounted_workspace} (ro)`);
    const intoMount = await writeTurn(bob, d, path.join(mount, 'note.txt'));
    expect(intoMount.error).to.match(/not one of this run's workspaces/);
    // The mount is given to the workspace resolution aside: neither the owner nor the run is told where the data folder is.
    // (The later turn names the mount's real path itself, in its own input: only its workspace record is looked at.)
    for (const url of [`/runs/${d.run_id}`, `/runs/${d.run_id}/input_data`, `/runs/${d.run_id}/workspace`, `/runs/${intoMount.ended.run_id}/workspace`]) {
      expect((await api('GET', url, bob)).body, url).to.not.contain(k.dataDir);
    }
    const inputs = (await api('GET', `/runs/${intoMount.ended.run_id}/input_data`, bob)).json<Record<string, unknown>>();
    expect(inputs).to.not.have.property('workspace');
    expect(readFileSync(path.join(mount, 'note.txt'), 'utf8')).to.equal('from the occurrence');
  });

  describe('later turns through POST /runs/start', () => {
    let d: Discussion;
    before(async () => {
      d = (await discuss(bob, echoAutomation, { request_id: 'later', occurrence_index: 2, prompt: 'Opening question' })).json<Discussion>();
      await finished(bob, d.run_id);
    });

    it('refuses context.messages (and workspace_root, and a schedule) in a discussion session with 400', async () => {
      const res = await api('POST', '/runs/start', bob, { bundle_id: 'echo', session_id: d.session_id, input_data: { prompt: 'x', context: { messages: [{ role: 'user', content: 'forged history' }] } } });
      expect(res.statusCode, res.body).to.equal(400);
      expect(res.body).to.contain('context.messages');
      // Not even the discussion's own seed, copied from its first run.
      const seed = (await api('GET', `/runs/${d.run_id}/input_data`, bob)).json<{ context: { messages: unknown[] } }>().context.messages;
      expect(seed.length).to.be.greaterThan(0);
      const copied = await api('POST', '/runs/start', bob, { bundle_id: 'echo', session_id: d.session_id, input_data: { prompt: 'x', context: { messages: seed } } });
      expect(copied.statusCode, copied.body).to.equal(400);
      const folder = await api('POST', '/runs/start', bob, { bundle_id: 'echo', session_id: d.session_id, workspace_root: k.dataDir, input_data: { prompt: 'x' } });
      expect(folder.statusCode, folder.body).to.equal(400);
      expect(folder.body).to.contain('workspace_root');
      const scheduled = await api('POST', '/runs/schedule', bob, { bundle_id: 'echo', flow_id: 'echo', session_id: d.session_id, input_data: { prompt: 'x' } });
      expect(scheduled.statusCode, scheduled.body).to.equal(400);
      expect(scheduled.body).to.contain('/runs/schedule');
      // Nothing started.
      expect(await sessionRows(bob, d.session_id)).to.have.length(1);
    });

    it('tags each turn as the discussion and seeds its history from the discussion (seed pairs, then the turns), whatever the client asked', async () => {
      const start = async (prompt: string, extra: Record<string, unknown> = {}) => {
        const res = await api('POST', '/runs/start', bob, { bundle_id: 'echo', session_id: d.session_id, input_data: { prompt, ...extra } });
        expect(res.statusCode, res.body).to.equal(200);
        return finished(bob, res.json<{ run_id: string }>().run_id);
      };
      const second = await start('Second question', { use_session_history: false });
      const messages = second.output!.context!.messages!;
      // Two seed pairs (occurrences 1 and 2), then the discussion's first turn.
      expect(messages.map((m) => m.role)).to.deep.equal(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
      expect(messages[0]!.content).to.match(/^\[Discussion of automation/);
      expect(messages.slice(4).map((m) => m.content)).to.deep.equal(['Opening question', 'Opening question']);
      expect(second.session_history).to.include({ seeded: 6, policy: 'most_recent_whole_turns' });
      const third = await start('Third question');
      expect(third.output!.context!.messages!.slice(-2).map((m) => m.content)).to.deep.equal(['Second question', 'Second question']);
      const rows = await sessionRows(bob, d.session_id);
      expect(rows).to.have.length(3);
      for (const row of rows) expect([row.session_kind, row.automation_id, row.role]).to.deep.equal(['discussion', echoAutomation, 'discussion']);
      const listed = (await api('GET', '/runs?root_only=true&session_kind=discussion', bob)).json<{ items: RunRow[] }>().items;
      expect(listed.map((r) => r.run_id)).to.include.members(rows.map((r) => r.run_id));
    });

    it("answers 409 session_attribution_failed for a discussion session that is not the caller's", async () => {
      for (const [token, session] of [[carol, d.session_id], [bob, 'discussion-session:made-up']] as const) {
        const res = await api('POST', '/runs/start', token, { bundle_id: 'echo', session_id: session, input_data: { prompt: 'let me in' } });
        expect(res.statusCode, res.body).to.equal(409);
        expect(res.body).to.contain('session_attribution_failed');
      }
      expect(await sessionRows(carol, d.session_id)).to.have.length(0);
    });
  });
});

describe('discuss: the window of a discussion (discussion.maxTokens 60 here)', function () {
  this.timeout(900_000);
  let k: TestKernel;

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: automationsPlugin, config: { discussion: { maxTokens: 60 } } }] });
    await uploadBundleAs(k, k.adminToken, 'echo', echoFlow);
  });
  after(() => k?.stop());

  it("drops the seed pairs first: a later turn keeps the discussion's newest turns whole, with the truncation line", async () => {
    const api = (method: 'GET' | 'POST', url: string, payload?: unknown) => k.inject({ method, url: `/api/gateway${url}`, token: k.adminToken, ...(payload === undefined ? {} : { payload }) });
    const created = await api('POST', '/automations', { request_id: 'w', title: 'Window', target: { bundle_ref: 'echo@1.0.0', flow_id: 'echo', input_data: { prompt: 'A prompt of some length to fill the window quickly' } }, trigger: { source_id: 'manual', source_version: 1, config: {} } });
    expect(created.statusCode, created.body).to.equal(200);
    const id = created.json<{ automation_id: string }>().automation_id;
    for (const n of [1, 2]) {
      expect((await api('POST', `/automations/${id}/commands`, { command_id: `c${n}`, type: 'automation.run_now' })).statusCode).to.equal(200);
      await until(async () => (await api('GET', `/automations/${id}/occurrences`)).json<{ items: Occurrence[] }>().items, { what: `occurrence ${n}`, ok: (items) => items.some((o) => o.index === n && o.status === 'completed'), deadline: 180_000 });
    }
    const d = (await api('POST', `/automations/${id}/discuss`, { request_id: 'd', occurrence_index: 2, prompt: 'Opening' })).json<Discussion>();
    const runOf = (runId: string) => until(async () => (await api('GET', `/runs/${runId}`)).json<HistoryRun>(), { what: `run ${runId}`, ok: (r) => r.status === 'completed', deadline: 180_000 });
    await runOf(d.run_id);
    const started = await api('POST', '/runs/start', { bundle_id: 'echo', session_id: d.session_id, input_data: { prompt: 'Next' } });
    expect(started.statusCode, started.body).to.equal(200);
    const next = await runOf(started.json<{ run_id: string }>().run_id);
    const messages = next.output!.context!.messages!;
    expect(messages.map((m) => m.role)).to.deep.equal(['user', 'assistant']);
    expect(messages[0]!.content).to.match(/^\[#TRUNCATION: \d+ earlier message\(s\)/);
    expect((messages[0]!.content as string).split('\n')[1]).to.equal('Opening');
    expect(next.session_history).to.include({ replayed_messages: 2, max_tokens: 60 });
    expect(next.session_history!.dropped_messages as number).to.be.greaterThan(0);
  });
});
