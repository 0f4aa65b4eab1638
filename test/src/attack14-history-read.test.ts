/**
 * Attack on issue 14 item 2 (history replay): turns that are not replayed (failed, or without a
 * prompt or an answer) never fill the history window, so a replay read the whole session at every
 * start, synchronously, on the event loop. A non-admin filling a session with such turns made each of
 * its replaying starts cost more and more (measured: 3,000 turns without a prompt, +35 ms per start;
 * the cost grows with every turn, without end). A replay now reads at most
 * `sessionHistory.maxTurnsRead` turns (default 2,048), newest first; older turns stay unread, the
 * counts say so (`dropped_counts_complete: false`) and the oldest replayed message carries the
 * truncation line.
 */
import { expect } from 'chai';
import { createAccount } from './helpers/accounts.js';
import { HistoryGateway, seeded, transcript } from './helpers/history.js';

describe('attack14: a history replay reads a bounded number of turns', function () {
  this.timeout(1_800_000);
  const gw = new HistoryGateway();
  let mallory = '';
  before(async () => {
    await gw.boot();
    mallory = await createAccount(gw.k, 'mallory');
    await gw.upload(mallory);
  });
  after(() => gw.stop());

  it('a session of 2,100 turns without a prompt above two replayable ones: the replay reads 2,048 turns and says older ones were left unread', async () => {
    const s = 'flooded';
    await gw.turn(s, { prompt: 'oldest question', response: 'oldest answer' }, mallory);
    await gw.turn(s, { prompt: 'old question', response: 'old answer' }, mallory);
    let last = '';
    for (let i = 0; i < 2_100; i++) last = await gw.start({ bundle_id: 'echo', session_id: s, input_data: { response: 'an answer without a prompt' } }, mallory);
    await gw.until(last, 'completed', mallory);
    // A replayable turn newest of all: the window holds it, the rest of the read is turns that are not replayed.
    await gw.turn(s, { prompt: 'newest question', response: 'newest answer' }, mallory);
    const run = await gw.replay(s, { prompt: 'next' }, mallory);
    expect(run.session_history).to.include({ seeded: 2, replayed_messages: 2, dropped_messages: 0, dropped_counts_complete: false, oversize_turn_kept: false });
    const messages = seeded(run);
    expect(transcript(messages)[1]).to.equal('assistant:newest answer');
    expect(messages[0]!.content).to.equal(
      '[#TRUNCATION: 0 earlier message(s) of this session (~0 tokens) (and older turns not counted) were dropped from replay by the history window '
      + '(the most recent 50000 tokens, whole turns; abstractruntime.session_history); this history starts mid-conversation]\nnewest question',
    );
    expect(messages[0]!.metadata.replay_truncated).to.equal(true);
  });
});
