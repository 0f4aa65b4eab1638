/**
 * `keel automations list|show|run-now|pause|resume` run as a user would, against the data directory
 * of a real `keel serve` on the same data: the commands read and command through the plugin's
 * service (the HTTP routes' answers), act as `--account` (default admin), print JSON, and only
 * record — the server's scheduler picks up a `run-now` by its poll. Usage mistakes exit 2, refusals 1.
 */
import path from 'node:path';
import { expect } from 'chai';
import { runKeel } from './helpers/cli.js';
import { ServedKeel, until } from './helpers/gateway-runs.js';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';

const echoFlow = {
  id: 'echo',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }), node({ id: 'end', type: 'on_flow_end', inputs: ['response'] })],
  edges: edges('start -> end', 'start.prompt -> end.response'),
};

interface Receipt { command_id: string; accepted: boolean; duplicate: boolean; seq: number }

describe('keel automations (CLI)', function () {
  this.timeout(900_000);
  const served = new ServedKeel();
  let adminAutomation = '';
  let bobAutomation = '';
  let bobToken = '';

  const keel = (...args: string[]) => runKeel(['automations', ...args, '--config', served.configFile, '--data-dir', served.dataDir]);
  const json = <T>(out: { stdout: string; stderr: string; code: number | null }, code = 0): T => {
    expect(out.code, `exit ${out.code}: ${out.stderr}${out.stdout}`).to.equal(code);
    return JSON.parse(out.stdout) as T;
  };
  const as = async (token: string, method: string, url: string, body?: unknown) => {
    const res = await fetch(`${served.url}/api/gateway${url}`, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const upload = async (token: string) => {
    const body = multipart({}, { name: 'echo.flow', bytes: bundle('echo', '1.0.0', echoFlow) });
    const res = await fetch(`${served.url}/api/gateway/bundles/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}`, ...body.headers }, body: body.payload });
    expect(res.status, await res.text()).to.equal(201);
  };
  const create = async (token: string, requestId: string) => {
    const res = await as(token, 'POST', '/automations', {
      request_id: requestId,
      title: `CLI ${requestId}`,
      target: { bundle_ref: 'echo@1.0.0', flow_id: 'echo', input_data: { prompt: 'hello' } },
      trigger: { source_id: 'manual', source_version: 1, config: {} },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.automation_id as string;
  };

  before(async () => {
    served.configure([
      { use: '@keel/plugin-inference', config: {} },
      { use: '@keel/plugin-ledger' },
      { use: '@keel/plugin-workspaces', config: {} },
      { use: '@keel/plugin-gateway-runs', config: {} },
      { use: '@keel/plugin-automations', config: { scheduler: { pollMs: 200 } } },
    ]);
    await served.start();
    const created = await as(served.adminToken, 'POST', '/admin/users', { account: 'bob' });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    bobToken = (created.body.token as { token: string }).token;
    await upload(served.adminToken);
    await upload(bobToken);
    adminAutomation = await create(served.adminToken, 'admin-one');
    bobAutomation = await create(bobToken, 'bob-one');
  });
  after(() => served.dispose());

  it('list and show print what the HTTP routes answer, for the admin account by default and --account otherwise', async () => {
    const list = json<{ items: Array<{ automation_id: string }>; next_cursor: string | null; archived_automations: number }>(await keel('list'));
    expect(list.items.map((a) => a.automation_id)).to.deep.equal([adminAutomation]);
    expect(list).to.include({ next_cursor: null, archived_automations: 0 });
    const viaHttp = await as(served.adminToken, 'GET', '/automations');
    expect(list).to.deep.equal(viaHttp.body);
    const bobs = json<{ items: Array<{ automation_id: string }> }>(await keel('list', '--account', 'bob'));
    expect(bobs.items.map((a) => a.automation_id)).to.deep.equal([bobAutomation]);

    const shown = json<{ definition: { title: string }; active_revision: number; summary: { automation_id: string } }>(await keel('show', adminAutomation));
    expect(shown.definition.title).to.equal('CLI admin-one');
    expect(shown.summary.automation_id).to.equal(adminAutomation);
    expect(shown).to.deep.equal((await as(served.adminToken, 'GET', `/automations/${adminAutomation}`)).body);
  });

  it("refuses another account's automation as the HTTP route does (exit 1, automation_not_found)", async () => {
    const out = await keel('show', bobAutomation);
    const refused = json<{ detail: { reason_code: string } }>(out, 1);
    expect(refused.detail.reason_code).to.equal('automation_not_found');
    expect(out.stderr).to.contain(bobAutomation);
    expect(json<{ detail: { reason_code: string } }>(await keel('pause', bobAutomation), 1).detail.reason_code).to.equal('automation_not_found');
  });

  it('pause and resume record the commands (receipts; the state the HTTP route then shows); a repeated command id is a duplicate', async () => {
    const paused = json<Receipt>(await keel('pause', bobAutomation, '--account', 'bob', '--command-id', 'cli-pause-1'));
    expect(paused).to.include({ command_id: 'cli-pause-1', accepted: true, duplicate: false });
    const status = async () => ((await as(bobToken, 'GET', `/automations/${bobAutomation}`)).body.summary as { status: string }).status;
    await until(status, { what: 'the automation to be paused', ok: (s) => s === 'paused', deadline: 60_000 });
    const again = json<Receipt>(await keel('pause', bobAutomation, '--account', 'bob', '--command-id', 'cli-pause-1'));
    expect(again).to.include({ command_id: 'cli-pause-1', duplicate: true, seq: paused.seq });
    const twice = json<{ detail: { reason_code: string } }>(await keel('pause', bobAutomation, '--account', 'bob'), 1);
    expect(twice.detail.reason_code).to.equal('invalid_state');
    const resumed = json<Receipt>(await keel('resume', bobAutomation, '--account', 'bob'));
    expect(resumed.accepted).to.equal(true);
    await until(status, { what: 'the automation to be active', ok: (s) => s === 'active', deadline: 60_000 });
  });

  it("run-now only records a manual fire (no server running: nothing runs); the server's scheduler runs it once started", async () => {
    await served.stop();
    const receipt = json<Receipt>(await keel('run-now', adminAutomation));
    expect(receipt.accepted).to.equal(true);
    const shown = json<{ summary: { occurrence_count: number; current_occurrence: unknown } }>(await keel('show', adminAutomation));
    expect(shown.summary).to.include({ occurrence_count: 0, current_occurrence: null });
    await served.start();
    const occurrences = () => as(served.adminToken, 'GET', `/automations/${adminAutomation}/occurrences`).then((r) => r.body.items as Array<{ index: number; status: string; answer: string }>);
    const [first] = await until(occurrences, { what: 'the occurrence to complete', ok: (items) => items.length === 1 && items[0]!.status === 'completed', deadline: 180_000 });
    expect(first!.index).to.equal(1);
  });

  it('exits 2 on usage mistakes and 1 for an unknown account', async () => {
    for (const args of [[], ['explode'], ['show'], ['show', 'a', 'b'], ['list', 'x'], ['list', '--limit', '0'], ['list', '--limit', 'many'], ['pause', adminAutomation, '--status', 'active'], ['show', adminAutomation, '--command-id', 'c'], ['list', '--bogus']]) {
      const out = await keel(...args);
      expect(out.code, `keel automations ${args.join(' ')}: ${out.stderr}`).to.equal(2);
      expect(out.stdout).to.equal('');
    }
    const badStatus = await keel('list', '--status', 'sleeping');
    expect(json<{ detail: { reason_code: string; field: string } }>(badStatus, 1).detail).to.include({ reason_code: 'invalid_request', field: 'status' });
    const stranger = await keel('list', '--account', 'nobody');
    expect(stranger.code).to.equal(1);
    expect(stranger.stderr).to.contain("account 'nobody' does not exist");
    const help = await runKeel(['--help', '--config', served.configFile]);
    expect(help.stdout).to.contain('keel automations');
    expect(path.isAbsolute(served.dataDir)).to.equal(true);
  });
});
