/** What the harness needs of an engine: start it, run a flow once, name its processes, stop it. */
import { fileURLToPath } from 'node:url';
import type { FlowKind } from './settings.js';

/** bench/peers/ (bench/dist/peers/ → ../../peers/): the peers' own package and code. */
export const PEERS_DIR = fileURLToPath(new URL('../../peers/', import.meta.url));

export interface RunningEngine {
  /** One run of the flow, from the request to the completed result; throws when it did not complete as it should. */
  run(flow: FlowKind): Promise<void>;
  /** The processes whose CPU and syncs count as the engine's (their descendants too), read when asked. */
  pids(): number[];
  /** How a run is driven, for the report (one request or two, which endpoint). */
  describe(flow: FlowKind): string;
  stop(): Promise<void>;
}

export interface Engine {
  label: string;
  /** Why the engine cannot run here, with how to install what is missing; null when it can. */
  missing(): string | null;
  /** Starts the engine; `clients` is the most concurrent runs it will be asked for. */
  start(clients: number): Promise<RunningEngine>;
}
