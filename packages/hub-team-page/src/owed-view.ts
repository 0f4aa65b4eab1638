/**
 * What this seat owes and is owed (`GET /owed`): asks to answer, answers to consume, threads to
 * close, asks it waits on, and charters to read. Rows open their message in the thread view.
 */
import { button, h, replaceChildren } from './dom.js';
import type { OwedReport } from './hub-types.js';
import type { PageServices } from './services.js';

type Row = Record<string, unknown>;

const SECTIONS: Array<{ key: 'to_answer' | 'to_consume' | 'to_close' | 'waiting_on'; title: string }> = [
  { key: 'to_answer', title: 'To answer' },
  { key: 'to_consume', title: 'Answers to consume' },
  { key: 'to_close', title: 'To close' },
  { key: 'waiting_on', title: 'Waiting on' },
];

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return Array.isArray(value) ? value.join(', ') : String(value);
}

export class OwedView {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private total = 0;

  constructor(private readonly services: PageServices) {
    this.body = h('div', { class: 'tp-panel__body' });
    this.element = h('section', { testid: 'owed-view', class: 'tp-panel' },
      h('div', { class: 'tp-panel__bar' }, h('h2', { class: 'tp-panel__title' }, 'Owed'), button('Refresh', 'owed-refresh', () => void this.load())),
      this.body);
  }

  /** Rows that ask something of this seat (to answer + to consume). */
  get owing(): number {
    return this.total;
  }

  async load(): Promise<OwedReport | undefined> {
    const report = await this.services.attempt('reading what is owed', () => this.services.hub.owed());
    if (!report) return undefined;
    this.total = (report.counts?.to_answer ?? report.to_answer?.length ?? 0) + (report.counts?.to_consume ?? report.to_consume?.length ?? 0);
    const sections = SECTIONS.map(({ key, title }) => {
      const rows = (report[key] ?? []) as unknown as Row[];
      return h('div', { testid: `owed-${key}`, class: 'tp-owed__section' },
        h('h3', { class: 'tp-owed__title' }, `${title} (${rows.length})`),
        rows.length ? h('ul', { class: 'tp-list' }, ...rows.map((row) => this.row(key, row))) : h('p', { class: 'tp-empty' }, 'None.'));
    });
    const charters = report.charters ?? [];
    if (charters.length) {
      sections.push(h('div', { testid: 'owed-charters', class: 'tp-owed__section' },
        h('h3', { class: 'tp-owed__title' }, `Charters to read (${charters.length})`),
        h('ul', { class: 'tp-list' }, ...charters.map((c) => h('li', { testid: 'owed-row', class: 'tp-list__row', data: { kind: 'charter', scope: c.scope } },
          h('span', { class: 'tp-list__where' }, c.scope),
          h('span', { class: 'tp-list__title' }, `v${c.version}, your receipt ${c.your_receipt ?? 'none'}${c.gated ? ' — posting gated' : ''}`),
          h('code', { class: 'tp-list__hint' }, c.read_with))))));
    }
    replaceChildren(this.body, ...sections);
    return report;
  }

  private row(kind: string, row: Row): HTMLElement {
    const channel = text(row.channel);
    const seq = typeof row.seq === 'number' ? row.seq : null;
    const detail = kind === 'to_consume' ? `answered by ${text(row.answered_by)} — your asks ${text(row.your_asks)}`
      : kind === 'to_answer' ? `from ${text(row.sender)} — pending ${text(row.pending_asks)}`
        : kind === 'waiting_on' ? `${text(row.seat)}: ${text(row.ask)} (${text(row.state)})`
          : `answered by ${text(row.answered_by)}`;
    return h('li', { testid: 'owed-row', class: 'tp-list__row', data: { kind, channel, seq } },
      h('span', { class: 'tp-list__where' }, seq !== null ? `${channel} #${seq}` : channel),
      h('span', { class: 'tp-list__title' }, text(row.title)),
      h('span', { class: 'tp-list__detail' }, detail),
      channel ? button('Open', 'owed-open', () => this.services.open(channel, seq ?? undefined), { class: 'tp-button tp-button--small' }) : null);
  }
}
