/**
 * How the page calls the hub, and where a failure shows: an act the person asked for shows the
 * hub's refusal verbatim in the refusal area; a background call (polling, badges) notes a failure
 * quietly in one status line, never over a refusal; a probe fails silently.
 */
import { h } from '../dom.js';
import { RefusalArea } from '../refusal-area.js';

export class PageCalls {
  readonly refusals = new RefusalArea();
  /** The quiet status line of background calls. */
  readonly background: HTMLElement = h('p', { testid: 'background-status', class: 'tp-background', attrs: { 'aria-live': 'polite' } });

  /** A call the person asked for: its refusal replaces whatever the refusal area showed. */
  async attempt<T>(action: string, call: () => Promise<T>, onRefusal?: (detail: string) => void): Promise<T | undefined> {
    this.refusals.clear();
    try {
      return await call();
    } catch (err) {
      const refusal = this.refusals.show(err, action);
      onRefusal?.(refusal.detail);
      return undefined;
    }
  }

  /** A background call (polling, badges): a failure is noted quietly, never over a refusal. */
  async quietly<T>(what: string, call: () => Promise<T>): Promise<T | undefined> {
    try {
      const result = await call();
      if (this.background.dataset.what === what) {
        this.background.textContent = '';
        delete this.background.dataset.what;
      }
      return result;
    } catch (err) {
      const e = err as { detail?: unknown; message?: unknown };
      this.background.dataset.what = what;
      this.background.textContent = `${what}: ${typeof e?.detail === 'string' ? e.detail : String(e?.message ?? err)}`;
      return undefined;
    }
  }

  /** A probe whose failure means nothing to the person (who the client speaks as before sign-in). */
  async silently<T>(call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch {
      return undefined;
    }
  }
}
