/**
 * Session history replay (seed 000 §2.2, §3, §8; reference gateway-surfaces §5.1–5.2) through the
 * HTTP API: which turns are replayed and how, when the gateway seeds and when the client's own
 * transcript wins, and what `GET /runs/{id}` shows as `session_history`.
 */
import { expect } from 'chai';
import { createAccount } from './helpers/accounts.js';
import { bundle, multipart } from './helpers/flow-builder.js';
import { echoFlow, HistoryGateway, seeded, transcript } from './helpers/history.js';

describe('history replay: which turns, and when the gateway seeds', function () {
  this.timeout(600_000);
  const gw = new HistoryGateway();
  before(() => gw.boot());
  after(() => gw.stop());

  it('replays completed turns oldest first as user/assistant pairs with session_turn metadata, records every field, and never writes input_data', async () => {
    const first = await gw.turn('s-basic', { prompt: 'What is 2+2?', response: 'Four.' });
    const second = await gw.turn('s-basic', { prompt: 'And 3+3?', response: 'Six.' });
    const run = await gw.replay('s-basic', { prompt: 'And 4+4?' });
    const messages = seeded(run);
    expect(transcript(messages)).to.deep.equal(['user:What is 2+2?', 'assistant:Four.', 'user:And 3+3?', 'assistant:Six.']);
    expect(messages[0]!.metadata).to.deep.equal({ kind: 'session_turn', run_id: first.run_id, ts: messages[0]!.metadata.ts });
    expect(messages[1]!.metadata).to.deep.equal(messages[0]!.metadata);
    expect(messages[2]!.metadata.run_id).to.equal(second.run_id);
    expect(Date.parse(messages[0]!.metadata.ts)).to.be.at.most(Date.parse(messages[2]!.metadata.ts));
    // Estimates: "user: What is 2+2?" 18 chars → 4, "assistant: Four." 16 → 4, "user: And 3+3?" 14 → 3, "assistant: Six." 15 → 3.
    expect(run.session_history).to.deep.equal({
      seeded: 4,
      policy: 'most_recent_whole_turns',
      max_tokens: 50000,
      token_estimator: 'keel.session_history.estimate_message_tokens',
      replayed_messages: 4,
      replayed_tokens: 14,
      dropped_messages: 0,
      dropped_tokens: 0,
      dropped_counts_complete: true,
      oversize_turn_kept: false,
    });
    // The inputs stay as the client sent them: the history is in the run's variables only.
    const input = await gw.inputData(run.run_id);
    expect(input).to.not.have.property('context');
    expect(input.use_session_history).to.equal(true);
  });

  it('a run that did not ask shows session_history null and gets no history', async () => {
    await gw.turn('s-not-asked', { prompt: 'hello', response: 'hi' });
    const run = await gw.turn('s-not-asked', { prompt: 'again' });
    expect(run.session_history).to.equal(null);
    expect(run.output!.context).to.equal(null);
  });

  it('skips failed, cancelled and unfinished turns, and turns without a prompt or an answer (blank after trimming)', async () => {
    const s = 's-skips';
    await gw.turn(s, { prompt: 'kept 1', response: 'yes 1' });
    const failed = await gw.start({ bundle_id: 'fail', session_id: s, input_data: { prompt: 'failed turn' } });
    await gw.until(failed, 'failed');
    const cancelled = await gw.start({ bundle_id: 'ask', session_id: s, input_data: { prompt: 'cancelled turn' } });
    await gw.until(cancelled, 'waiting');
    await gw.k.inject({ method: 'POST', url: '/api/gateway/commands', token: gw.admin, payload: { command_id: crypto.randomUUID(), run_id: cancelled, type: 'cancel', payload: {} } });
    await gw.until(cancelled, 'cancelled');
    const waiting = await gw.start({ bundle_id: 'ask', session_id: s, input_data: { prompt: 'still waiting turn' } });
    await gw.until(waiting, 'waiting');
    await gw.turn(s, { prompt: '   ', response: 'answer to a blank prompt' });
    await gw.turn(s, { prompt: 'no answer' });
    await gw.turn(s, { prompt: 'blank answer', response: ' \n ' });
    await gw.turn(s, { prompt: 'kept 2', response: 'yes 2' });
    const run = await gw.replay(s);
    expect(transcript(seeded(run))).to.deep.equal(['user:kept 1', 'assistant:yes 1', 'user:kept 2', 'assistant:yes 2']);
    expect(run.session_history).to.include({ seeded: 4, dropped_messages: 0, dropped_counts_complete: true });
  });

  it('failed and cancelled turns are invisible to replay but shown in the session\'s history view (GET /runs?root_only=true)', async () => {
    const s = 's-history-view';
    const done = await gw.turn(s, { prompt: 'kept', response: 'yes' });
    const failed = await gw.start({ bundle_id: 'fail', session_id: s, input_data: { prompt: 'failed turn' } });
    await gw.until(failed, 'failed');
    const cancelled = await gw.start({ bundle_id: 'ask', session_id: s, input_data: { prompt: 'cancelled turn' } });
    await gw.until(cancelled, 'waiting');
    await gw.k.inject({ method: 'POST', url: '/api/gateway/commands', token: gw.admin, payload: { command_id: crypto.randomUUID(), run_id: cancelled, type: 'cancel', payload: {} } });
    await gw.until(cancelled, 'cancelled');
    const run = await gw.replay(s);
    expect(transcript(seeded(run))).to.deep.equal(['user:kept', 'assistant:yes']);
    const view = (await gw.k.inject({ url: `/api/gateway/runs?root_only=true&session_id=${s}`, token: gw.admin })).json<{ items: Array<{ run_id: string; status: string }> }>();
    const statuses = Object.fromEntries(view.items.map((r) => [r.run_id, r.status]));
    expect(statuses).to.deep.include({ [done.run_id]: 'completed', [failed]: 'failed', [cancelled]: 'cancelled', [run.run_id]: 'completed' });
  });

  it('internal (__*) workflows and draft-test runs of the session are not turns: never replayed, never counted', async () => {
    const s = 's-not-turns';
    const upload = async (bundleId: string, version: string) => {
      const body = multipart({}, { name: `${bundleId}.flow`, bytes: bundle(bundleId, version, echoFlow) });
      const res = await gw.k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: gw.admin, payload: body.payload, headers: body.headers });
      expect(res.statusCode, res.body).to.equal(201);
    };
    await upload('__internal', '1.0.0');
    await upload('drafty', 'draft.1');
    await gw.turn(s, { prompt: 'kept', response: 'yes' });
    for (const bundleId of ['__internal', 'drafty']) {
      const id = await gw.start({ bundle_id: bundleId, session_id: s, input_data: { prompt: `from ${bundleId}`, response: 'not a turn' } });
      await gw.until(id, 'completed');
    }
    const run = await gw.replay(s);
    expect(transcript(seeded(run))).to.deep.equal(['user:kept', 'assistant:yes']);
    expect(run.session_history).to.include({ seeded: 2, dropped_messages: 0 });
  });

  it('a turn still waiting at one replay is replayed by the next once it completed (only ended turns are remembered)', async () => {
    const s = 's-later';
    await gw.turn(s, { prompt: 'first', response: 'one' });
    const asked = await gw.start({ bundle_id: 'ask', session_id: s, input_data: { prompt: 'Your name?' } });
    await gw.until(asked, 'waiting');
    expect(transcript(seeded(await gw.replay(s)))).to.deep.equal(['user:first', 'assistant:one']);
    await gw.k.inject({ method: 'POST', url: '/api/gateway/commands', token: gw.admin, payload: { command_id: crypto.randomUUID(), run_id: asked, type: 'resume', payload: { payload: { response: 'Ada' } } } });
    await gw.until(asked, 'completed');
    expect(transcript(seeded(await gw.replay(s)))).to.deep.equal(['user:first', 'assistant:one', 'user:Your name?', 'assistant:Ada']);
  });

  it('takes the answer from output.response, else output.answer, else a string output.result, verbatim', async () => {
    const s = 's-answers';
    await gw.turn(s, { prompt: 'q1', answer: 'from answer' });
    await gw.turn(s, { prompt: 'q2', result: 'from result' });
    await gw.turn(s, { prompt: 'q3', result: { not: 'a string' } });
    await gw.turn(s, { prompt: '  q4  ', response: '', answer: ' padded answer ' });
    const run = await gw.replay(s);
    expect(transcript(seeded(run))).to.deep.equal(['user:q1', 'assistant:from answer', 'user:q2', 'assistant:from result', 'user:  q4  ', 'assistant: padded answer ']);
  });

  it('steering guidance sent to a turn is not replayed, only its prompt and answer', async () => {
    const s = 's-guidance';
    const asked = await gw.start({ bundle_id: 'ask', session_id: s, input_data: { prompt: 'Name a colour.' } });
    await gw.until(asked, 'waiting');
    const command = (type: string, payload: Record<string, unknown>) => gw.k.inject({ method: 'POST', url: '/api/gateway/commands', token: gw.admin, payload: { command_id: crypto.randomUUID(), run_id: asked, type, payload } });
    expect((await command('inject_guidance', { guidance: 'STEERING: answer in French' })).statusCode).to.equal(200);
    expect((await command('resume', { payload: { response: 'Blue.' } })).statusCode).to.equal(200);
    await gw.until(asked, 'completed');
    const run = await gw.replay(s);
    const messages = seeded(run);
    expect(transcript(messages)).to.deep.equal(['user:Name a colour.', 'assistant:Blue.']);
    expect(JSON.stringify(run.output)).to.not.contain('STEERING');
  });

  it('a non-empty client context.messages always wins: nothing seeded, the transcript untouched', async () => {
    const s = 's-client-wins';
    await gw.turn(s, { prompt: 'earlier', response: 'reply' });
    const mine = [{ role: 'user', content: 'my own transcript' }];
    const run = await gw.replay(s, { context: { messages: mine, task: 'kept' } });
    expect(run.session_history).to.deep.equal({ seeded: 0, skipped: 'client context.messages present' });
    expect(run.output!.context).to.deep.equal({ messages: mine, task: 'kept' });
  });

  it('an empty client context.messages does not count as a transcript: the history is seeded, other context keys kept', async () => {
    const s = 's-empty-list';
    await gw.turn(s, { prompt: 'earlier', response: 'reply' });
    const run = await gw.replay(s, { context: { messages: [], task: 'kept' } });
    expect(transcript(seeded(run))).to.deep.equal(['user:earlier', 'assistant:reply']);
    expect(run.output!.context!.task).to.equal('kept');
    expect(run.session_history).to.include({ seeded: 2 });
  });

  it('a session without any replayable turn is seeded with an empty list', async () => {
    const run = await gw.replay('s-fresh', { prompt: 'first question' });
    expect(seeded(run)).to.deep.equal([]);
    expect(run.session_history).to.include({ seeded: 0, replayed_messages: 0, dropped_messages: 0, dropped_counts_complete: true });
  });

  it('a client context that is not an object is left alone and recorded as skipped', async () => {
    const s = 's-context-string';
    await gw.turn(s, { prompt: 'earlier', response: 'reply' });
    const run = await gw.replay(s, { context: 'just a string' });
    expect(run.session_history).to.deep.equal({ seeded: 0, skipped: 'client context is not an object' });
    expect(run.output!.context).to.equal('just a string');
    const list = await gw.replay(s, { context: [1, 2] });
    expect(list.session_history).to.deep.equal({ seeded: 0, skipped: 'client context is not an object' });
  });

  it('the retired inputs are ignored (no cap applied) and listed with their values in ignored_inputs', async () => {
    const s = 's-retired';
    await gw.turn(s, { prompt: 'one', response: '1' });
    await gw.turn(s, { prompt: 'two', response: '2' });
    const run = await gw.replay(s, { session_history_max_messages: 1, session_history_max_chars: 3 });
    expect(seeded(run)).to.have.length(4);
    expect(run.session_history).to.include({ seeded: 4 });
    expect(run.session_history!.ignored_inputs).to.deep.equal({ session_history_max_messages: 1, session_history_max_chars: 3 });
  });

  it('use_session_history without a session_id, or not the boolean true, seeds nothing and says why', async () => {
    const noSession = await gw.until(await gw.start({ bundle_id: 'echo', input_data: { use_session_history: true } }), 'completed');
    expect(noSession.session_history).to.deep.equal({ seeded: 0, skipped: 'no session_id: a run without a session has no history to replay' });
    await gw.turn('s-truthy', { prompt: 'earlier', response: 'reply' });
    const truthy = await gw.turn('s-truthy', { use_session_history: 'true' });
    expect(truthy.session_history).to.deep.equal({ seeded: 0, skipped: 'use_session_history is not true' });
    expect(truthy.output!.context).to.equal(null);
  });

  it("another account naming the same session id gets none of its owner's turns", async () => {
    const eve = await createAccount(gw.k, 'eve');
    await gw.upload(eve);
    await gw.turn('s-shared-name', { prompt: 'admin secret question', response: 'admin secret answer' });
    const run = await gw.replay('s-shared-name', { prompt: 'what did they ask?' }, eve);
    expect(seeded(run)).to.deep.equal([]);
    expect(JSON.stringify(run)).to.not.contain('secret');
    // And the owner's replay does not see eve's turn either.
    const own = await gw.replay('s-shared-name');
    expect(transcript(seeded(own))).to.deep.equal(['user:admin secret question', 'assistant:admin secret answer']);
  });
});
