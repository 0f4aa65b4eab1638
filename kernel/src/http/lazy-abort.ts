/**
 * An abort controller whose AbortSignal is only built when someone asks for it. Building an
 * AbortSignal costs microseconds in Node 20 (it is a full EventTarget), which showed up as a
 * large share of the kernel's per-request cost although most routes never read the signal.
 * Observable behaviour is that of an AbortController made up front: a signal asked for after
 * `abort` is already aborted with the first reason given, one asked for before gets the event.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private aborted = false;
  private reason: unknown;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Like `AbortController.abort`: the first reason wins, later calls do nothing. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
