/** `node bench/dist/inference/run.js`: the inference benchmark alone. Exits 0 whatever the figures; 1 only if it crashed. */
import { benchInference } from './bench-inference.js';

try {
  await benchInference();
} catch (err) {
  console.error('inference benchmark crashed:', err);
  process.exitCode = 1;
}
