/**
 * `npm run bench`: every benchmark, one after another. Benchmarks report, they do not gate: the
 * exit code is 0 whatever the figures, and 1 only when a benchmark crashed.
 */
import { benchHttp } from './http/bench-http.js';

const benchmarks: Array<{ name: string; run: () => Promise<unknown> }> = [{ name: 'http', run: () => benchHttp() }];

for (const { name, run } of benchmarks) {
  console.log(`\n=== ${name} ===`);
  try {
    await run();
  } catch (err) {
    console.error(`${name} benchmark crashed:`, err);
    process.exitCode = 1;
  }
}
