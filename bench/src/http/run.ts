/** `node bench/dist/http/run.js`: the HTTP benchmark alone. Exits 0 whatever the figures; 1 only if it crashed. */
import { benchHttp } from './bench-http.js';

try {
  await benchHttp();
} catch (err) {
  console.error('http benchmark crashed:', err);
  process.exitCode = 1;
}
