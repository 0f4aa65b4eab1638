/**
 * Session history failures degrade, never block (seed 000 §7; reference gateway-surfaces §5.1): a
 * replay that cannot be seeded is recorded as a `#FALLBACK` note and the run starts unseeded. The
 * failure here is a real one: the gateway's run limit `limits.maxVarsBytes` is at its least (64 KiB)
 * and the session's history (about 80 KB, well within the 50,000-token window) would make the new
 * run's variables too large, so it would fail at its first step.
 */
import { expect } from 'chai';
import { HistoryGateway } from './helpers/history.js';

describe('history replay: a failure is a #FALLBACK note and an unseeded start', function () {
  this.timeout(600_000);
  const gw = new HistoryGateway({ limits: { maxVarsBytes: 65536 } });
  before(() => gw.boot());
  after(() => gw.stop());

  it('a history too large for the run limits: the start answers 200, the run completes unseeded, session_history.error names the setting', async () => {
    for (let i = 0; i < 5; i++) await gw.turn('f-large', { prompt: `${i}`.repeat(8000), response: `${i}`.repeat(8000) });
    const run = await gw.replay('f-large', { prompt: 'and now?' });
    expect(run.status).to.equal('completed');
    expect(run.output!.context).to.equal(null);
    expect(run.session_history).to.have.all.keys('seeded', 'error');
    expect(run.session_history!.seeded).to.equal(0);
    expect(run.session_history!.error).to.equal("#FALLBACK: session history seed failed: the replayed history would make the run's variables larger than 64 KiB, the most one run may hold (setting limits.maxVarsBytes of the gateway-runs plugin)");
    // The session goes on: a start that does not ask is unaffected, and one with its own transcript wins as ever.
    const own = await gw.replay('f-large', { context: { messages: [{ role: 'user', content: 'short' }] } });
    expect(own.status).to.equal('completed');
    expect(own.session_history).to.deep.equal({ seeded: 0, skipped: 'client context.messages present' });
  });
});
