/** `node bench/dist/relay/run.js`: the relay benchmark alone. Exits 0 whatever the figures; 1 only if it crashed. */
import { runAlone } from '../ledger/kit.js';
import { benchRelay } from './bench-relay.js';

await runAlone('relay', () => benchRelay());
