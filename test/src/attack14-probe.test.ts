import { HistoryGateway } from './helpers/history.js';
import { createAccount } from './helpers/accounts.js';

describe('probe', function () {
  this.timeout(3_600_000);
  const gw = new HistoryGateway();
  before(() => gw.boot());
  after(() => gw.stop());
  it('measures', async () => {
    const m = await createAccount(gw.k, 'mallory');
    await gw.upload(m);
    const N = Number(process.env.N ?? 2000);
    let t = Date.now();
    let last = '';
    for (let i = 0; i < N; i++) last = await gw.start({ bundle_id: 'echo', session_id: 'big', input_data: { response: 'no prompt' } }, m);
    console.log('created', N, 'in', Date.now() - t);
    await gw.until(last, 'completed', m);
    for (const s of ['big', 'big', 'big', 'fresh', 'fresh']) {
      t = performance.now();
      await gw.start({ bundle_id: 'echo', session_id: s, input_data: { use_session_history: true, prompt: 'q' } }, m);
      console.log('replay start', s, (performance.now() - t).toFixed(1), 'ms');
    }
  });
});
