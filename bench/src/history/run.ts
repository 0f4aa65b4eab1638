/** `node bench/dist/history/run.js`: the history replay benchmark alone. Exits 0 whatever the figures; 1 only if it crashed. */
import { runAlone } from '../ledger/kit.js';
import { benchHistory } from './bench-history.js';

await runAlone('history', () => benchHistory());
