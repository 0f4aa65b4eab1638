/** `node bench/dist/hub/run.js`: the hub benchmark alone. Exits 0 whatever the figures; 1 only if it crashed. */
import { runAlone } from '../ledger/kit.js';
import { benchHub } from './bench-hub.js';

await runAlone('hub', () => benchHub());
