/**
 * The WebSocket class the kernel's socket server creates. `ws` emits `message` (and every other
 * event) from inside its frame parser, which runs in the TCP socket's `data` handler: a listener
 * that throws there unwinds into the parser and out of the event loop, and a listener that returns
 * a rejected promise is an unhandled rejection. Either would end the process. Here each listener
 * runs on its own; a throw or a rejection is reported to `onListenerError`, which closes that one
 * socket, and the other listeners still run. An `error` with no listener is reported too, never
 * thrown.
 */
import { WebSocket } from 'ws';

export class GuardedWebSocket extends WebSocket {
  /** Set by the kernel once the socket is accepted (log, then close with 1011). */
  onListenerError: (err: unknown, event: string) => void = () => this.terminate();

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    const listeners = this.rawListeners(event);
    if (listeners.length === 0) {
      if (event === 'error') this.report(args[0], event);
      return false;
    }
    for (const listener of listeners) {
      try {
        const returned: unknown = (listener as (...a: unknown[]) => unknown).apply(this, args);
        if (isThenable(returned)) returned.then(undefined, (err: unknown) => this.report(err, event));
      } catch (err) {
        this.report(err, event);
      }
    }
    return true;
  }

  private report(err: unknown, event: string | symbol): void {
    try {
      this.onListenerError(err, String(event));
    } catch {
      this.terminate();
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
