/** `node bench/dist/ledger/run.js`: the ledger benchmark alone. Exits 0 whatever the figures; 1 only if it crashed. */
import { benchLedger } from './bench-ledger.js';
import { runAlone } from './kit.js';

await runAlone('ledger', () => benchLedger());
