/**
 * What this seat owes and is owed (`GET /owed`): charters to read first (a new seat's first debt),
 * then asks to answer, answers to consume, threads to close and asks it waits on. Rows open their
 * message in the thread view. A charter row reads the charter as the reference's `read_charter()`
 * does: the hub charter (`GET /charter`) shows here, a room's `channel/charter.md` opens in Files;
 * either read records the seat's receipt, and the list is read again.
 */
import { button, h, replaceChildren } from './dom.js';
import type { CharterDebtRow, HubCharterDoc, OwedReport } from './hub-types.js';
import type { PageServices } from './services.js';

type Row = Record<string, unknown>;

const ROOM_CHARTER = 'channel/charter.md';

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
  /** The hub charter once read from here. */
  private readonly reader: HTMLElement;
  private total = 0;

  constructor(private readonly services: PageServices) {
    this.body = h('div', { class: 'tp-panel__body' });
    this.reader = h('article', { testid: 'owed-charter', class: 'tp-owed__charter', attrs: { hidden: true } });
    this.element = h('section', { testid: 'owed-view', class: 'tp-panel' },
      h('div', { class: 'tp-panel__bar' }, h('h2', { class: 'tp-panel__title' }, 'Owed'), button('Refresh', 'owed-refresh', () => void this.load())),
      this.reader,
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
      sections.unshift(h('div', { testid: 'owed-charters', class: 'tp-owed__section' },
        h('h3', { class: 'tp-owed__title' }, `Charters to read (${charters.length})`),
        h('ul', { class: 'tp-list' }, ...charters.map((c) => this.charterRow(c)))));
    }
    replaceChildren(this.body, ...sections);
    return report;
  }

  private charterRow(c: CharterDebtRow): HTMLElement {
    const hub = c.scope === 'hub';
    const state = c.your_receipt === null ? 'not read yet' : `you read v${c.your_receipt}`;
    return h('li', { testid: 'owed-row', class: 'tp-list__row', data: { kind: 'charter', scope: c.scope } },
      h('span', { class: 'tp-list__where' }, hub ? 'hub' : `#${c.scope}`),
      h('span', { class: 'tp-list__title' }, `${hub ? 'Hub charter' : 'Room charter'} v${c.version} — ${state}${c.gated ? '; posting there waits for it' : ''}`),
      button(hub ? 'Read the hub charter' : 'Read the room charter', 'owed-read-charter', () => void this.readCharter(c), {
        class: 'tp-button tp-button--small tp-button--primary', attrs: { title: `Reads it and records your receipt (${c.read_with})` },
      }));
  }

  /** Reads a charter the seat owes (recording the receipt), then reads the list again. */
  private async readCharter(c: CharterDebtRow): Promise<void> {
    if (c.scope !== 'hub') {
      this.services.openFile(c.scope, ROOM_CHARTER);
      return;
    }
    const doc = await this.services.attempt('reading the hub charter', () => this.services.hub.charter());
    if (!doc) return;
    this.showCharter(doc);
    await this.load();
  }

  private showCharter(doc: HubCharterDoc): void {
    this.reader.hidden = false;
    const cut = doc.sliced ? ` Sections for other roles were left out (${doc.omitted.length}).` : '';
    replaceChildren(this.reader,
      h('div', { class: 'tp-panel__bar' },
        h('h3', { class: 'tp-owed__title' }, `Hub charter v${doc.version}`),
        h('span', { testid: 'owed-charter-note', class: 'tp-list__detail' }, `Read — your receipt is recorded.${cut}`),
        doc.sliced ? button('Read all sections', 'owed-charter-full', () => void this.readFull(), { class: 'tp-button tp-button--small' }) : null,
        button('Close', 'owed-charter-close', () => { this.reader.hidden = true; }, { class: 'tp-button tp-button--small tp-button--quiet' })),
      h('div', { testid: 'owed-charter-text', class: 'tp-owed__charter-text' }, doc.text));
  }

  private async readFull(): Promise<void> {
    const doc = await this.services.attempt('reading the whole hub charter', () => this.services.hub.charter(true));
    if (doc) this.showCharter(doc);
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
