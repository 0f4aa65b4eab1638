/** The main area's tabs: one panel visible at a time, each tab with an optional count badge. */
import { h } from './dom.js';

export interface TabSpec<K extends string> {
  key: K;
  label: string;
  panel: HTMLElement;
}

export class Tabs<K extends string> {
  readonly element: HTMLElement;
  readonly panels: HTMLElement;
  private readonly buttons = new Map<K, HTMLButtonElement>();
  private readonly badges = new Map<K, HTMLElement>();
  private current: K;

  constructor(private readonly specs: Array<TabSpec<K>>, private readonly onShow: (key: K) => void) {
    this.current = specs[0]!.key;
    this.element = h('div', { testid: 'tabs', class: 'tp-tabs', attrs: { role: 'tablist' } });
    this.panels = h('div', { class: 'tp-tabs__panels' });
    for (const spec of specs) {
      const badge = h('span', { testid: `tab-${spec.key}-count`, class: 'tp-badge tp-badge--count', attrs: { hidden: true } });
      const btn = h('button', {
        testid: `tab-${spec.key}`,
        class: 'tp-tabs__tab',
        attrs: { type: 'button', role: 'tab' },
        on: { click: () => this.show(spec.key) },
      }, spec.label, badge);
      spec.panel.setAttribute('role', 'tabpanel');
      this.buttons.set(spec.key, btn);
      this.badges.set(spec.key, badge);
      this.element.append(btn);
      this.panels.append(spec.panel);
    }
    this.show(this.current, false);
  }

  get selected(): K {
    return this.current;
  }

  show(key: K, notify = true): void {
    this.current = key;
    for (const spec of this.specs) {
      const on = spec.key === key;
      spec.panel.hidden = !on;
      this.buttons.get(spec.key)!.setAttribute('aria-selected', on ? 'true' : 'false');
      this.buttons.get(spec.key)!.classList.toggle('tp-tabs__tab--selected', on);
    }
    if (notify) this.onShow(key);
  }

  setCount(key: K, count: number | null): void {
    const badge = this.badges.get(key);
    if (!badge) return;
    badge.hidden = !count;
    badge.textContent = count ? String(count) : '';
  }
}
