/** IPC message shapes every benchmark client child shares (see forked-child.ts). */

/** Child → parent: the connections are open (or failed). */
export interface ConnectedMessage {
  type: 'connected';
  opened: number;
  failed: number;
  firstError: string | null;
  ms: number;
}

export interface Percentiles {
  p50: number;
  p99: number;
  max: number;
}
