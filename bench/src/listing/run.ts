/** `node bench/dist/listing/run.js`: the run listing benchmark alone. Exits 0 whatever the figures; 1 only if it crashed. */
import { runAlone } from '../ledger/kit.js';
import { benchListing } from './bench-listing.js';

await runAlone('listing', () => benchListing());
