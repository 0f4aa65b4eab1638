/**
 * Waits that outlive their runner, and resume commands that are applied or refused, never queued and
 * ignored (issue 9 items 10 and 20).
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { askUserFlow, bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { gatewayRuns, ServedKeel, until, type LedgerItem, type RunRecord } from './helpers/gateway-runs.js';

const PLUGINS = [{ use: '@keel/plugin-inference' }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-workspaces' }, { use: '@keel/plugin-gateway-runs' }];

/** start → wait `seconds` → end with the response "waited enough". */
function waitFlow(seconds: number) {
  return {
    id: 'wait',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: [] }),
      node({ id: 'pause', type: 'wait_until', inputs: ['duration'], data: { pinDefaults: { duration: seconds } } }),
      node({ id: 'say', type: 'concat', exec: false, inputs: ['a', 'b'], outputs: ['result'], data: { pinDefaults: { a: 'waited', b: 'enough' }, concatConfig: { separator: ' ' } } }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
    ],
    edges: edges('start -> pause', 'pause -> end', 'say.result -> end.response'),
  };
}

type WaitingRun = RunRecord & { waiting: { reason: string; until: string | null; wait_key: string | null } | null; paused: boolean; resumed_at: string | null };

/** Resolves once the wall clock is past `iso` (plus a margin): the deadline has passed for certain. */
async function pastDeadline(iso: string, marginMs = 500): Promise<void> {
  await until(async () => Date.now(), (now) => now > Date.parse(iso) + marginMs, Date.parse(iso) - Date.now() + 60_000);
}

/** The `resume` record the runner wrote when it answered the wait. */
const resumeRecord = (items: LedgerItem[]) => items.find((i) => i.effect?.type === 'resume');

describe('a wait_until whose time passes while no runner is up resumes when one starts (a real `keel serve`)', function () {
  this.timeout(180_000);

  describe('keel serve killed with -9 during the wait, restarted after its deadline', () => {
    const keel = new ServedKeel();
    before(() => keel.configure(PLUGINS));
    after(() => keel.dispose());

    it('resumes the run at restart and completes it', async () => {
      await keel.start();
      const body = multipart({}, { name: 'wait.flow', bytes: bundle('wait-5', '1.0.0', waitFlow(5)) });
      expect((await keel.call('POST', '/api/gateway/bundles/upload', body.payload, body.headers)).status).to.equal(201);
      const runId = (await keel.call('POST', '/api/gateway/runs/start', { bundle_id: 'wait-5' })).body.run_id as string;
      const waiting = (await until(() => keel.run(runId), (r) => r.status === 'waiting', 60_000)) as WaitingRun;
      expect(waiting.waiting).to.include({ reason: 'until' });

      await keel.stop('SIGKILL');
      await pastDeadline(waiting.waiting!.until!);
      const restartedAt = Date.now();
      await keel.start();

      const run = await until(() => keel.run(runId), (r) => r.status === 'completed', 60_000);
      expect(run.output).to.deep.include({ response: 'waited enough' });
      // The wait was answered by the new process, after the deadline: not before the kill.
      const resume = resumeRecord(await keel.ledger(runId));
      expect(resume?.effect?.payload).to.deep.include({ wait_reason: 'until' });
      expect(Date.parse(resume!.started_at)).to.be.at.least(restartedAt);
    });
  });

  describe('keel serve --no-runner, its runner stopped during the wait, another runner started after the deadline; resumes through the server', () => {
    const keel = new ServedKeel();
    before(() => keel.configure(PLUGINS));
    after(() => keel.dispose());

    it('resumes the run in the later runner and completes it; a resume sent to the server is applied there', async () => {
      await keel.start(['--no-runner']);
      await keel.startRunner();
      const call = keel.call.bind(keel);
      const upload = multipart({}, { name: 'wait.flow', bytes: bundle('wait-4', '1.0.0', waitFlow(4)) });
      expect((await call('POST', '/api/gateway/bundles/upload', upload.payload, upload.headers)).status).to.equal(201);
      const runId = (await call('POST', '/api/gateway/runs/start', { bundle_id: 'wait-4' })).body.run_id as string;
      const getRun = async () => (await call('GET', `/api/gateway/runs/${runId}`)).body as unknown as WaitingRun;
      const waiting = await until(getRun, (r) => r.status === 'waiting', 60_000);

      expect(await keel.runner!.stop('SIGTERM')).to.equal(0);
      await pastDeadline(waiting.waiting!.until!);
      expect((await getRun()).status).to.equal('waiting');
      const laterStart = Date.now();
      await keel.startRunner();

      const run = await until(getRun, (r) => r.status === 'completed', 60_000);
      expect(run.output).to.deep.include({ response: 'waited enough' });
      const resume = resumeRecord((await call('GET', `/api/gateway/runs/${runId}/ledger?limit=100`)).body.items as LedgerItem[]);
      expect(Date.parse(resume!.started_at)).to.be.at.least(laterStart);

      // A resume sent to the server reaches the separate runner and is applied; an idle one is refused by the server.
      const ask = multipart({}, { name: 'ask.flow', bytes: bundle('ask', '1.0.0', askUserFlow()) });
      expect((await call('POST', '/api/gateway/bundles/upload', ask.payload, ask.headers)).status).to.equal(201);
      const askId = (await call('POST', '/api/gateway/runs/start', { bundle_id: 'ask' })).body.run_id as string;
      const getAsk = async () => (await call('GET', `/api/gateway/runs/${askId}`)).body as unknown as WaitingRun;
      const asking = await until(getAsk, (r) => r.status === 'waiting', 60_000);
      const command = (payload: Record<string, unknown>) => call('POST', '/api/gateway/commands', { command_id: crypto.randomUUID(), run_id: askId, type: 'resume', payload });
      const idle = await command({});
      expect(idle.status).to.equal(409);
      expect((idle.body.detail as { message: string }).message).to.contain(`wait_key '${asking.waiting!.wait_key}'`);
      expect((await command({ wait_key: asking.waiting!.wait_key, payload: { response: 'Ada' } })).status).to.equal(200);
      expect((await until(getAsk, (r) => r.status === 'completed', 60_000)).output).to.deep.include({ response: 'Ada' });
    });
  });
});

describe('POST /api/gateway/commands resume: applied at once, or refused with the reason', function () {
  this.timeout(120_000);
  let k: TestKernel;
  const { uploadBundle, getRun } = gatewayRuns(() => k);
  const run = (id: string) => getRun(id) as Promise<WaitingRun>;
  const command = (runId: string, type: string, payload: Record<string, unknown> = {}, commandId: string = crypto.randomUUID()) =>
    k.inject({ method: 'POST', url: '/api/gateway/commands', token: k.adminToken, payload: { command_id: commandId, run_id: runId, type, payload } });
  const start = async (bundleId: string) => (await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: bundleId } })).json<{ run_id: string }>().run_id;

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    await uploadBundle('wait-4', waitFlow(4));
    await uploadBundle('wait-hour', waitFlow(3600));
    await uploadBundle('ask', askUserFlow());
  });
  after(() => k?.stop());

  it('resumes a run paused during its wait_until once the time has passed during the pause', async () => {
    const id = await start('wait-4');
    const waiting = await until(() => run(id), (r) => r.status === 'waiting');
    expect((await command(id, 'pause', { reason: 'hold on' })).statusCode).to.equal(200);
    await until(() => run(id), (r) => r.paused);
    await pastDeadline(waiting.waiting!.until!);
    expect(await run(id)).to.include({ status: 'waiting', paused: true });

    const res = await command(id, 'resume');
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.include({ accepted: true });
    const done = await until(() => run(id), (r) => r.status === 'completed');
    expect(done.output).to.deep.include({ response: 'waited enough' });
  });

  it('refuses a resume without payload.payload on a run that is not paused (409 invalid_state, with what the run waits for)', async () => {
    const id = await start('wait-hour');
    const waiting = await until(() => run(id), (r) => r.status === 'waiting');
    const res = await command(id, 'resume');
    expect(res.statusCode).to.equal(409);
    const detail = res.json<{ detail: { reason_code: string; message: string } }>().detail;
    expect(detail.reason_code).to.equal('invalid_state');
    expect(detail.message).to.contain(`Run ${id} is not paused`).and.contain(`waits until ${waiting.waiting!.until}`);
    expect((await run(id)).status).to.equal('waiting');
    await command(id, 'cancel');
  });

  it('answers an ask_user wait with payload.payload, and refuses a wrong wait_key, a non-object answer and a run that has ended', async () => {
    const id = await start('ask');
    const waiting = await until(() => run(id), (r) => r.status === 'waiting');
    const key = waiting.waiting!.wait_key!;

    const wrongKey = await command(id, 'resume', { wait_key: 'nope', payload: { response: 'x' } });
    expect(wrongKey.statusCode).to.equal(409);
    expect(wrongKey.json<{ detail: { message: string } }>().detail.message).to.contain("wait_key 'nope'").and.contain(`'${key}'`);
    const notObject = await command(id, 'resume', { payload: 'Ada' });
    expect(notObject.statusCode).to.equal(400);
    expect(notObject.json<{ detail: { field: string } }>().detail.field).to.equal('body.payload.payload');
    const unpaused = await command(id, 'resume');
    expect(unpaused.statusCode).to.equal(409);
    expect(unpaused.json<{ detail: { message: string } }>().detail.message).to.contain(`wait_key '${key}'`);

    const answered = await command(id, 'resume', { wait_key: key, payload: { response: 'Ada' } }, `answer-${id}`);
    expect(answered.json()).to.deep.include({ accepted: true, duplicate: false });
    // A repeat of the same command id is a duplicate, whatever the run's state now.
    expect((await command(id, 'resume', {}, `answer-${id}`)).json()).to.deep.include({ accepted: false, duplicate: true });
    expect((await until(() => run(id), (r) => r.status === 'completed')).output).to.deep.include({ response: 'Ada' });
    const ended = await command(id, 'resume', { payload: { response: 'again' } });
    expect(ended.statusCode).to.equal(409);
    expect(ended.json<{ detail: { message: string } }>().detail.message).to.contain('has ended (completed)');
  });

  it('accepts a resume sent right behind a pause that is still queued, and applies both in order', async () => {
    const id = await start('ask');
    await until(() => run(id), (r) => r.status === 'waiting');
    expect((await command(id, 'pause')).statusCode).to.equal(200);
    expect((await command(id, 'resume')).statusCode).to.equal(200);
    const settled = await until(() => run(id), (r) => r.resumed_at !== null && !r.paused);
    expect(settled.status).to.equal('waiting');
    await command(id, 'cancel');
  });

  it('runs the next occurrence of a recurrent schedule now on a resume without payload', async () => {
    const id = (await k.inject({ method: 'POST', url: '/api/gateway/runs/schedule', token: k.adminToken, payload: { bundle_id: 'keel-chat', input_data: { prompt: 'Hi!' }, start_at: 'now', interval: '1 hour', repeat_count: 3 } })).json<{ run_id: string }>().run_id;
    const children = async () => (await k.inject({ url: `/api/gateway/runs?parent_run_id=${id}`, token: k.adminToken })).json<{ items: RunRecord[] }>().items;
    await until(children, (kids) => kids.length === 1 && kids[0]!.status === 'completed');
    // Waiting for the next occurrence (not for the child that just ended).
    await until(() => run(id), (r) => r.status === 'waiting' && r.waiting?.reason === 'until');
    expect((await command(id, 'resume')).statusCode).to.equal(200);
    await until(children, (kids) => kids.length === 2);
    await command(id, 'cancel');
  });
});
