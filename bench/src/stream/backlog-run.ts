/** `node bench/dist/stream/backlog-run.js`: the backlog benchmark alone (a large ledger replayed while a small run streams). */
import { runAlone } from '../ledger/kit.js';
import { benchBacklog } from './bench-backlog.js';

await runAlone('stream backlog', () => benchBacklog());
