/** `node bench/dist/artifacts/run.js`: the artifacts benchmarks (search, workspace streaming). Exits 0 whatever the figures; 1 only if it crashed. */
import { runAlone } from '../ledger/kit.js';
import { benchArtifacts } from './bench-artifacts.js';

await runAlone('artifacts', () => benchArtifacts());
