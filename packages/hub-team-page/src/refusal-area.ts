/**
 * The one visible place where the hub's refusals appear. The hub decides every act; the page shows
 * its sentence verbatim (`HubError.detail`) and never rewrites or pre-judges it.
 */
import { button, h, replaceChildren } from './dom.js';

export interface Refusal {
  status: number | null;
  detail: string;
  /** What the page was doing (shown beside the sentence, never mixed into it). */
  action: string;
}

/** The hub's sentence of an error: `detail` verbatim when the client attached one. */
export function refusalOf(err: unknown, action: string): Refusal {
  const e = err as { status?: unknown; detail?: unknown; message?: unknown } | null;
  const status = typeof e?.status === 'number' ? e.status : null;
  let detail: string;
  if (typeof e?.detail === 'string') detail = e.detail;
  else if (e?.detail !== undefined && e?.detail !== null) detail = JSON.stringify(e.detail);
  else if (typeof e?.message === 'string') detail = e.message;
  else detail = String(err);
  return { status, detail, action };
}

export class RefusalArea {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;

  constructor() {
    this.body = h('div', { class: 'tp-refusal__body' });
    this.element = h('section', { testid: 'refusal-area', class: 'tp-refusal', attrs: { role: 'alert', 'aria-live': 'assertive', hidden: true } }, this.body);
  }

  show(err: unknown, action: string): Refusal {
    const refusal = refusalOf(err, action);
    replaceChildren(
      this.body,
      h('span', { testid: 'refusal-action', class: 'tp-refusal__action' }, refusal.action),
      refusal.status !== null ? h('span', { testid: 'refusal-status', class: 'tp-refusal__status' }, String(refusal.status)) : null,
      h('p', { testid: 'refusal', class: 'tp-refusal__detail', data: { status: refusal.status ?? '' } }, refusal.detail),
      button('Dismiss', 'refusal-dismiss', () => this.clear(), { class: 'tp-button tp-button--quiet' }),
    );
    this.element.hidden = false;
    return refusal;
  }

  clear(): void {
    this.body.replaceChildren();
    this.element.hidden = true;
  }
}
