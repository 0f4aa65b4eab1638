/** `node bench/dist/stream/run.js`: the SSE fan-out benchmark alone. Exits 0 whatever the figures; 1 only if it crashed. */
import { runAlone } from '../ledger/kit.js';
import { benchStream } from './bench-stream.js';

await runAlone('stream', () => benchStream());
