/** The part of `proper-lockfile` (4.1.2, ships no types) the traffic log's policy store uses. */
declare module 'proper-lockfile' {
  export interface LockOptions {
    stale?: number;
    update?: number;
    retries?: number | { retries?: number; factor?: number; minTimeout?: number; maxTimeout?: number; randomize?: boolean };
    realpath?: boolean;
    lockfilePath?: string;
    onCompromised?: (err: Error) => void;
  }
  export function lock(file: string, options?: LockOptions): Promise<() => Promise<void>>;
}
