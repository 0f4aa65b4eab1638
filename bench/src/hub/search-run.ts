/** `node bench/dist/hub/search-run.js`: the hub search benchmark alone. Exits 0 whatever the figures; 1 only if it crashed. */
import { runAlone } from '../ledger/kit.js';
import { benchHubSearch } from './bench-search.js';

await runAlone('hub search', () => benchHubSearch());
