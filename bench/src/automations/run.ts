/** `node bench/dist/automations/run.js`: the automations scheduler benchmark alone. Exits 0 whatever the figures; 1 only if it crashed. */
import { runAlone } from '../ledger/kit.js';
import { benchAutomations } from './bench-automations.js';

await runAlone('automations', () => benchAutomations());
