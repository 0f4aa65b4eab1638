/** `node bench/dist/steps/run.js`: the steps benchmark alone. Exits 0 whatever the figures; 1 only if it crashed. */
import { runAlone } from '../ledger/kit.js';
import { benchSteps } from './bench-steps.js';

await runAlone('steps', () => benchSteps());
