/**
 * How a server child and the benchmark parent talk over the fork IPC channel: the child reports
 * its port once listening; on `cpu` it reports its CPU time so far (all threads); on `stop` it
 * closes and exits (a clean exit is what lets `--cpu-prof` write its profile).
 */
export interface ReadyMessage {
  type: 'ready';
  port: number;
}

export interface CpuMessage {
  type: 'cpu';
  usage: NodeJS.CpuUsage;
}

export const STOP_MESSAGE = 'stop';
export const CPU_MESSAGE = 'cpu';

export function isReadyMessage(msg: unknown): msg is ReadyMessage {
  return typeof msg === 'object' && msg !== null && (msg as ReadyMessage).type === 'ready' && typeof (msg as ReadyMessage).port === 'number';
}

export function isCpuMessage(msg: unknown): msg is CpuMessage {
  return typeof msg === 'object' && msg !== null && (msg as CpuMessage).type === 'cpu';
}

/** In a server child: announce the port, then close and exit when the parent says stop or goes away. */
export function serveAsChild(port: number, close: () => Promise<void>): void {
  if (!process.send) throw new Error('server scripts run as children of the benchmark (no IPC channel)');
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('message', (msg) => {
    if (msg === STOP_MESSAGE) shutdown();
    if (msg === CPU_MESSAGE) process.send?.({ type: 'cpu', usage: process.cpuUsage() } satisfies CpuMessage);
  });
  // An orphaned server would skew the next measurement: leave with the parent.
  process.on('disconnect', shutdown);
  const ready: ReadyMessage = { type: 'ready', port };
  process.send(ready);
}
