/** `node bench/dist/peers/run.js`: Keel beside Restate and DBOS (issue 21). Exits 0 whatever the figures; 1 only if it crashed. */
import { runAlone } from '../ledger/kit.js';
import { benchPeers } from './bench-peers.js';

await runAlone('peers', () => benchPeers());
