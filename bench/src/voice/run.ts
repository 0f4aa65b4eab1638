/** `node bench/dist/voice/run.js`: the voice benchmark alone. Exits 0 whatever the figures; 1 only if it crashed. */
import { runAlone } from '../ledger/kit.js';
import { benchVoice } from './bench-voice.js';

await runAlone('voice', () => benchVoice());
