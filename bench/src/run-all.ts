/**
 * `npm run bench`: every benchmark, one after another. Benchmarks report, they do not gate: the
 * exit code is 0 whatever the figures, and 1 only when a benchmark crashed.
 */
import { benchHttp } from './http/bench-http.js';

const benchmarks: Array<{ name: string; run: () => Promise<unknown> }> = [{ name: 'http', run: () => benchHttp() }];
benchmarks.push({ name: 'inference', run: async () => (await import('./inference/bench-inference.js')).benchInference() });
benchmarks.push({ name: 'ledger', run: async () => (await import('./ledger/bench-ledger.js')).benchLedger() });
benchmarks.push({ name: 'stream', run: async () => (await import('./stream/bench-stream.js')).benchStream() });
benchmarks.push({ name: 'steps', run: async () => (await import('./steps/bench-steps.js')).benchSteps() });
benchmarks.push({ name: 'steps (mixed flow)', run: async () => (await import('./steps/bench-steps.js')).benchSteps(undefined, (await import('./steps/mixed-flow.js')).MIXED_FLOW) });
benchmarks.push({ name: 'hub', run: async () => (await import('./hub/bench-hub.js')).benchHub() });
benchmarks.push({ name: 'hub search', run: async () => (await import('./hub/bench-search.js')).benchHubSearch() });
benchmarks.push({ name: 'history', run: async () => (await import('./history/bench-history.js')).benchHistory() });
benchmarks.push({ name: 'automations', run: async () => (await import('./automations/bench-automations.js')).benchAutomations() });
benchmarks.push({ name: 'artifacts', run: async () => (await import('./artifacts/bench-artifacts.js')).benchArtifacts() });
benchmarks.push({ name: 'relay', run: async () => (await import('./relay/bench-relay.js')).benchRelay() });
benchmarks.push({ name: 'voice', run: async () => (await import('./voice/bench-voice.js')).benchVoice() });
benchmarks.push({ name: 'peers', run: async () => (await import('./peers/bench-peers.js')).benchPeers() });

for (const { name, run } of benchmarks) {
  console.log(`\n=== ${name} ===`);
  try {
    await run();
  } catch (err) {
    console.error(`${name} benchmark crashed:`, err);
    process.exitCode = 1;
  }
}
