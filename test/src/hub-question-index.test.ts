/**
 * The board, the desk and the digest read a channel's question rows (posted open, blocked or
 * resolved) from an index instead of its whole transcript. A hub whose data was written before that
 * index existed fills it once at start, so nothing it owes disappears from those views.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { open } from 'lmdb';
import { startHub, type HubHarness } from './helpers/hub.js';

describe('hub: question-row index behind /board, /desk and the digest', function () {
  this.timeout(120_000);
  let dataDir: string;
  let hub: HubHarness | undefined;

  before(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'keel-hub-questions-'));
  });
  after(async () => {
    await hub?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  interface Views { board: string[]; desk: string[]; open: string[]; decided: string[] }
  const views = async (h: HubHarness, keys: Record<'ann' | 'bob' | 'op', string>): Promise<Views> => {
    const board = (await h.call('GET', '/board', keys.bob)).body;
    const desk = (await h.call('GET', '/desk', keys.op)).body;
    const digest = (await h.call('GET', '/channels/work/digest', keys.bob)).body;
    return {
      board: board.pending_on_me.map((r: { id: string }) => r.id),
      desk: desk.rows.map((r: { id?: string; message_id?: string }) => r.id ?? r.message_id).sort(),
      open: digest.open_questions.map((r: { id: string }) => r.id),
      decided: digest.decided.map((r: { id: string }) => r.id).sort(),
    };
  };

  it('serves the same rows after a restart that has to rebuild the index from the transcript', async () => {
    hub = await startHub({}, { dataDir });
    const keys = await hub.seats(['ann', 'bob', 'op'] as const, ['op']);
    await hub.room('work', keys.ann, [keys.bob, keys.op]);
    const post = async (who: string, payload: Record<string, unknown>) => {
      const res = await hub!.call('POST', '/channels/work/messages', who, { title: 't', ...payload });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body.id as string;
    };
    // Chatter the views skip, around the rows they show.
    for (let i = 0; i < 5; i++) await post(keys.ann, { body: `fyi ${i}`, status: 'fyi' });
    const asked = await post(keys.ann, { body: 'bob, which port?', status: 'open', to: ['bob'] });
    const toOperator = await post(keys.ann, { body: 'op, please look', status: 'open', to: ['op'] });
    const settled = await post(keys.ann, { body: 'we ship friday', status: 'resolved' });
    for (let i = 0; i < 5; i++) await post(keys.bob, { body: `more ${i}`, status: 'fyi' });
    const before = await views(hub, keys);
    expect(before.board).to.include(asked);
    expect(before.desk).to.include(toOperator);
    expect(before.open).to.include.members([asked, toOperator]);
    expect(before.decided).to.include(settled);
    await hub.stop();
    hub = undefined;

    // As a hub written before the index existed: no index rows, no version mark.
    const env = open({ path: path.join(dataDir, 'db'), maxDbs: 512, compression: false });
    await env.openDB({ name: 'hub:question-rows' }).clearAsync();
    await env.openDB({ name: 'hub:index-versions' }).remove('question-rows');
    await env.close();

    hub = await startHub({}, { dataDir });
    expect(await views(hub, keys)).to.deep.equal(before);
  });
});
