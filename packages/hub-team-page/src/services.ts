/** What panels get from the page: the hub client, the refusal-reporting call wrapper, navigation. */
import type { TeamHub } from './hub-types.js';

export interface PageServices {
  hub: TeamHub;
  /** Runs a hub call; a refusal is shown verbatim in the refusal area and the result is undefined. */
  attempt<T>(action: string, call: () => Promise<T>): Promise<T | undefined>;
  /** Selects a channel (and focuses a message of it). */
  open(channel: string, seq?: number): void;
  /** Shows a file of a channel in the Files panel (reading it records a charter receipt when it is one). */
  openFile(channel: string, path: string): void;
  /** Opens the direct message with a seat (a new one is created by its first message). */
  startDm(peer: string): void;
  /** The signed-in seat id. */
  seat(): string | null;
}
