/** `node bench/dist/artifacts/search-run.js`: the artifact search benchmark alone. Exits 0 whatever the figures; 1 only if it crashed. */
import { runAlone } from '../ledger/kit.js';
import { benchArtifactSearch } from './bench-search.js';

await runAlone('artifact search', () => benchArtifactSearch());
