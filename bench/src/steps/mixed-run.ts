/** `node bench/dist/steps/mixed-run.js`: the steps benchmark on the mixed flow of issue 13 (code, memory_note, set, string_template). */
import { runAlone } from '../ledger/kit.js';
import { benchSteps } from './bench-steps.js';
import { MIXED_FLOW } from './mixed-flow.js';
import { stepsSettingsFromEnv } from './settings.js';

await runAlone('steps (mixed flow)', () => benchSteps(stepsSettingsFromEnv(), MIXED_FLOW));
