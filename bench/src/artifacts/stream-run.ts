/** `node bench/dist/artifacts/stream-run.js`: the workspace streaming benchmark alone. Exits 0 whatever the figures; 1 only if it crashed. */
import { runAlone } from '../ledger/kit.js';
import { benchWorkspaceStream } from './bench-stream.js';

await runAlone('workspace streaming', () => benchWorkspaceStream());
