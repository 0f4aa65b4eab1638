/**
 * The history window (reference gateway-surfaces §5.3–5.5) through the HTTP API, on a gateway whose
 * window is 100 tokens (`sessionHistory.maxTokens`) so each edge is reached with a few turns: whole
 * turns newest first up to the budget (exactly the budget fits), contiguous, the oversize newest
 * turn kept alone, the truncation line verbatim, content-part lists at 512 tokens per media part,
 * and `dropped_counts_complete` exact for the read in batches of 32 turns.
 */
import { expect } from 'chai';
import { HistoryGateway, seeded, transcript } from './helpers/history.js';

/** A turn of exactly 20 estimated tokens: "user: " + 34 chars = 40 → 10; "assistant: " + 29 chars = 40 → 10. */
const turn20 = (n: number) => ({ prompt: `p${String(n).padStart(3, '0')}`.padEnd(34, '.'), response: `a${String(n).padStart(3, '0')}`.padEnd(29, '.') });
const prompt20 = (n: number) => turn20(n).prompt;

const line = (dropped: number, tokens: number, more = '') =>
  `[#TRUNCATION: ${dropped} earlier message(s) of this session (~${tokens} tokens)${more} were dropped from replay by the history window (the most recent 100 tokens, whole turns; abstractruntime.session_history); this history starts mid-conversation]`;

describe('history replay: the window (100 tokens here)', function () {
  this.timeout(900_000);
  const gw = new HistoryGateway({ sessionHistory: { maxTokens: 100 } });
  before(() => gw.boot());
  after(() => gw.stop());

  it('a window exactly full keeps every turn and has no truncation line', async () => {
    for (let i = 1; i <= 5; i++) await gw.turn('w-exact', turn20(i));
    const run = await gw.replay('w-exact');
    const messages = seeded(run);
    expect(messages).to.have.length(10);
    expect(messages[0]!.content).to.equal(prompt20(1));
    expect(messages[0]!.metadata).to.not.have.property('replay_truncated');
    expect(run.session_history).to.include({ seeded: 10, replayed_messages: 10, replayed_tokens: 100, dropped_messages: 0, dropped_tokens: 0, dropped_counts_complete: true, oversize_turn_kept: false, max_tokens: 100 });
  });

  it('one turn more: the oldest is dropped whole and the oldest kept message carries the exact truncation line and the window report', async () => {
    for (let i = 1; i <= 6; i++) await gw.turn('w-drop', turn20(i));
    const run = await gw.replay('w-drop');
    const messages = seeded(run);
    expect(messages).to.have.length(10);
    expect(messages[0]!.role).to.equal('user');
    expect(messages[0]!.content).to.equal(`${line(2, 20)}\n${prompt20(2)}`);
    // Only that message is changed; the line is not counted against the window.
    expect(messages[2]!.content).to.equal(prompt20(3));
    expect(run.session_history).to.include({ seeded: 10, replayed_tokens: 100, dropped_messages: 2, dropped_tokens: 20, dropped_counts_complete: true, oversize_turn_kept: false });
    const { seeded: _seeded, ...report } = run.session_history!;
    expect(messages[0]!.metadata.replay_truncated).to.equal(true);
    expect(messages[0]!.metadata.history_window).to.deep.equal(report);
    expect(messages[1]!.metadata).to.not.have.property('replay_truncated');
  });

  it('the window is contiguous: it stops at the first turn that does not fit, never skipping it to keep an older one', async () => {
    await gw.turn('w-contiguous', turn20(1));
    // 6 + 240 chars → 61 tokens, 11 + 1 → 3: a 64-token turn.
    await gw.turn('w-contiguous', { prompt: 'b'.repeat(240), response: 'B' });
    await gw.turn('w-contiguous', turn20(3));
    await gw.turn('w-contiguous', turn20(4));
    const run = await gw.replay('w-contiguous');
    // 20 + 20 fit, 40 + 64 = 104 does not; the older 20-token turn would fit but is dropped too.
    expect(transcript(seeded(run)).slice(1)).to.deep.equal([`assistant:${turn20(3).response}`, `user:${prompt20(4)}`, `assistant:${turn20(4).response}`]);
    expect(run.session_history).to.include({ seeded: 4, replayed_tokens: 40, dropped_messages: 4, dropped_tokens: 84, oversize_turn_kept: false });
    expect(seeded(run)[0]!.content).to.equal(`${line(4, 84)}\n${prompt20(3)}`);
  });

  it('a newest turn above the window is kept whole and alone (oversize_turn_kept), the older ones dropped', async () => {
    await gw.turn('w-oversize', turn20(1));
    await gw.turn('w-oversize', turn20(2));
    // 6 + 600 chars → 151 tokens, plus "assistant: OK" 13 → 3: 154 tokens.
    const big = 'x'.repeat(600);
    await gw.turn('w-oversize', { prompt: big, response: 'OK' });
    const run = await gw.replay('w-oversize');
    const messages = seeded(run);
    expect(messages).to.have.length(2);
    expect(messages[0]!.content).to.equal(`${line(4, 40)}\n${big}`);
    expect(messages[1]!.content).to.equal('OK');
    expect(run.session_history).to.include({ seeded: 2, replayed_tokens: 154, dropped_messages: 4, dropped_tokens: 40, oversize_turn_kept: true, dropped_counts_complete: true });
  });

  it('a content-part list counts its text plus 512 tokens per media part, is replayed as sent, and gets the truncation line as one more text part', async () => {
    const parts = [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }, { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }];
    await gw.turn('w-parts', turn20(1));
    await gw.turn('w-parts', { prompt: parts, response: 'ok' });
    const run = await gw.replay('w-parts');
    const messages = seeded(run);
    // "user: look" 10 chars → 2, two media parts → 1024; "assistant: ok" 13 → 3: 1029, above the window, kept alone.
    expect(run.session_history).to.include({ seeded: 2, replayed_tokens: 1029, dropped_messages: 2, dropped_tokens: 20, oversize_turn_kept: true });
    expect(messages[0]!.content).to.deep.equal([{ type: 'text', text: line(2, 20) }, ...parts]);
    expect(messages[1]!.content).to.equal('ok');
  });

  it('a prompt made of a `<runtime_metadata>` envelope gets the line right after the envelope', async () => {
    const enveloped = `<runtime_metadata>{"now": "2026-11-24"}</runtime_metadata>\n${'q'.repeat(400)}`;
    await gw.turn('w-envelope', turn20(1));
    await gw.turn('w-envelope', { prompt: enveloped, response: 'ok' });
    const run = await gw.replay('w-envelope');
    expect(seeded(run)[0]!.content).to.equal(`<runtime_metadata>{"now": "2026-11-24"}</runtime_metadata>\n${line(2, 20)}\n${'q'.repeat(400)}`);
  });

  it('dropped_counts_complete: true when the first read of 32 turns reached the session start, false (with the line saying so) when turns older than the read remain', async () => {
    const s = 'w-batches';
    for (let i = 1; i <= 32; i++) await gw.turn(s, turn20(i));
    const whole = await gw.replay(s);
    // 32 turns read: 5 kept, 27 dropped, and nothing older.
    expect(whole.session_history).to.include({ replayed_messages: 10, dropped_messages: 54, dropped_tokens: 540, dropped_counts_complete: true });
    expect(seeded(whole)[0]!.content).to.equal(`${line(54, 540)}\n${prompt20(28)}`);
    // That probe is a turn without an answer (read, never replayed). Eight more turns: the newest 32 read
    // are 8 new turns, the probe and 23 old ones; 5 kept, 26 dropped, and 9 older turns never read.
    for (let i = 33; i <= 40; i++) await gw.turn(s, turn20(i));
    const partial = await gw.replay(s);
    expect(partial.session_history).to.include({ replayed_messages: 10, dropped_messages: 52, dropped_tokens: 520, dropped_counts_complete: false });
    expect(seeded(partial)[0]!.content).to.equal(`${line(52, 520, ' (and older turns not counted)')}\n${prompt20(36)}`);
  });
});
