/**
 * A few DOM helpers so views stay declarative without a framework. Text always goes in through
 * `textContent` (never innerHTML): everything the hub serves is untrusted.
 */

export type Child = Node | string | number | null | undefined | false;

export interface Attrs {
  /** `data-testid`, the stable selector tests and hosts use. */
  testid?: string;
  class?: string;
  /** Other attributes; `false`/`null`/`undefined` leave the attribute out, `true` sets it empty. */
  attrs?: Record<string, string | number | boolean | null | undefined>;
  /** `data-*` attributes, keyed without the prefix. */
  data?: Record<string, string | number | boolean | null | undefined>;
  on?: Partial<{ [K in keyof HTMLElementEventMap]: (event: HTMLElementEventMap[K]) => void }>;
}

/** Creates an element with attributes, listeners and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs.testid) el.dataset.testid = attrs.testid;
  if (attrs.class) el.className = attrs.class;
  for (const [name, value] of Object.entries(attrs.attrs ?? {})) {
    if (value === false || value === null || value === undefined) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [name, value] of Object.entries(attrs.data ?? {})) {
    if (value === null || value === undefined) continue;
    el.dataset[name] = String(value);
  }
  for (const [type, listener] of Object.entries(attrs.on ?? {})) {
    el.addEventListener(type, listener as EventListener);
  }
  append(el, ...children);
  return el;
}

/** Appends children, skipping empty ones; strings and numbers become text nodes. */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Replaces every child of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** A button with a test id and a click handler. */
export function button(label: string, testid: string, onClick: (event: MouseEvent) => void, extra: Attrs = {}): HTMLButtonElement {
  return h('button', { ...extra, testid, class: extra.class ?? 'tp-button', attrs: { type: 'button', ...extra.attrs }, on: { click: onClick } }, label);
}

/** A labelled form field wrapper. */
export function field(label: string, control: HTMLElement): HTMLLabelElement {
  return h('label', { class: 'tp-field' }, h('span', { class: 'tp-field__label' }, label), control);
}

/** Local time of an epoch-seconds timestamp, short. */
export function formatTime(epochSeconds: number | null | undefined): string {
  if (typeof epochSeconds !== 'number' || !Number.isFinite(epochSeconds)) return '';
  const date = new Date(epochSeconds * 1000);
  return date.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}
