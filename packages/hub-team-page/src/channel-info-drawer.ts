/**
 * The channel info drawer (`GET /channels/{c}/info`), read only while it is open: who made the
 * channel and when, its visibility and state, purpose and norms, the room charter (a link that
 * opens `channel/charter.md` in Files, which records the seat's receipt), phases and members, each
 * member with a Message control that opens a direct message.
 */
import { button, formatTime, h, replaceChildren } from './dom.js';
import type { ChannelInfo, Member } from './hub-types.js';
import type { PageServices } from './services.js';

const CHARTER_PATH = 'channel/charter.md';

export class ChannelInfoDrawer {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private channel: string | null = null;
  private opened = false;
  private loads = 0;

  constructor(private readonly services: PageServices, private readonly onClose: () => void) {
    this.body = h('div', { class: 'tp-drawer__body' });
    this.element = h('aside', { testid: 'channel-info', class: 'tp-drawer', attrs: { hidden: true, 'aria-label': 'Channel info' } },
      h('div', { class: 'tp-panel__bar' },
        h('h3', { class: 'tp-drawer__title' }, 'Channel info'),
        button('Refresh', 'channel-info-refresh', () => void this.load()),
        button('Close', 'channel-info-close', () => this.onClose(), { class: 'tp-button tp-button--quiet' })),
      this.body);
  }

  get isOpen(): boolean {
    return this.opened;
  }

  /** Opens or closes the drawer; opening reads the info. */
  setOpen(open: boolean): void {
    this.opened = open;
    this.element.hidden = !open;
    if (open) void this.load();
  }

  /** Follows the selected channel; an open drawer re-reads for the new one. */
  setChannel(channel: string | null): void {
    if (channel === this.channel) return;
    this.channel = channel;
    replaceChildren(this.body);
    if (this.opened && channel) void this.load();
  }

  async load(): Promise<void> {
    const channel = this.channel;
    if (!channel || !this.opened) return;
    const ticket = ++this.loads;
    replaceChildren(this.body, h('p', { class: 'tp-empty' }, 'Reading…'));
    const info = await this.services.attempt(`reading the info of ${channel}`, () => this.services.hub.channel_info(channel));
    if (ticket !== this.loads || channel !== this.channel) return;
    if (!info) {
      replaceChildren(this.body);
      return;
    }
    this.render(channel, info);
  }

  private render(channel: string, info: ChannelInfo): void {
    const c = info.channel;
    const meta = info.meta ?? {};
    const facts: Array<[string, string]> = [];
    if (c) facts.push(['Visibility', c.private ? 'private' : 'public']);
    if (c?.created_by) facts.push(['Created by', `${c.created_by}${c.created_at ? `, ${formatTime(c.created_at)}` : ''}`]);
    if (info.state) facts.push(['State', info.state]);
    if (info.language) facts.push(['Language', info.language]);
    if (typeof info.response_sla_minutes === 'number') facts.push(['Response SLA', `${info.response_sla_minutes} min`]);
    for (const [key, label] of [['purpose', 'Purpose'], ['norms', 'Norms'], ['expected_traffic', 'Expected traffic']] as const) {
      const value = meta[key];
      if (typeof value === 'string' && value.trim() !== '') facts.push([label, value]);
    }
    const members = (info.members ?? []).map(memberOf).sort((a, b) => (a.role === 'owner' ? 0 : 1) - (b.role === 'owner' ? 0 : 1) || a.agent_id.localeCompare(b.agent_id));
    const seat = this.services.seat();
    const dm = info.is_dm === true || channel.startsWith('dm:');
    replaceChildren(this.body,
      h('dl', { testid: 'channel-info-facts', class: 'tp-facts' }, ...facts.flatMap(([label, value]) => [
        h('dt', { class: 'tp-facts__label' }, label),
        h('dd', { class: 'tp-facts__value', data: { fact: label.toLowerCase().replace(/\s+/g, '-') } }, value),
      ])),
      meta.norms_required === true ? h('p', { testid: 'channel-info-norms-required', class: 'tp-drawer__note' }, 'Posting here requires reading the room charter at its current version.') : null,
      this.charter(channel, info.charter),
      info.phases?.length ? h('div', { class: 'tp-drawer__section' },
        h('h4', { class: 'tp-drawer__heading' }, `Phases (${info.phases.length})`),
        h('ul', { testid: 'channel-phases', class: 'tp-list' }, ...info.phases.map((p) => h('li', { class: 'tp-list__row', data: { key: p.key } },
          h('span', { class: 'tp-list__where' }, p.key),
          h('span', { class: 'tp-list__title' }, `${p.current}${p.next ? ` → ${p.next}` : ''}`),
          h('span', { class: 'tp-list__detail' }, `${p.status}${p.steward ? ` · steward ${p.steward}` : ''}`))))) : null,
      h('div', { class: 'tp-drawer__section' },
        h('h4', { class: 'tp-drawer__heading' }, `Members (${members.length})`),
        h('ul', { testid: 'channel-members', class: 'tp-list' }, ...members.map((m) => h('li', { testid: 'channel-member', class: 'tp-list__row', data: { agent: m.agent_id, role: m.role } },
          h('span', { class: 'tp-list__who' }, m.agent_id),
          m.role ? h('span', { class: m.role === 'owner' ? 'tp-chip tp-chip--accent' : 'tp-chip' }, m.role) : null,
          m.about ? h('span', { class: 'tp-list__title' }, m.about) : null,
          m.mission ? h('span', { class: 'tp-list__detail', attrs: { title: m.mission } }, `mission: ${m.mission}`) : null,
          !dm && seat && m.agent_id !== seat ? button('Message', 'member-dm', () => this.services.startDm(m.agent_id), { class: 'tp-button tp-button--small' }) : null)))),
    );
  }

  private charter(channel: string, charter: ChannelInfo['charter']): HTMLElement {
    const section = h('div', { testid: 'channel-charter', class: 'tp-drawer__section' }, h('h4', { class: 'tp-drawer__heading' }, 'Room charter'));
    if (charter && typeof charter === 'object') {
      const path = typeof charter.path === 'string' && charter.path ? charter.path : CHARTER_PATH;
      section.append(
        button(path, 'channel-charter-link', () => this.services.openFile(channel, path), { class: 'tp-link', data: { path } }),
        h('span', { class: 'tp-list__detail' }, ` v${charter.version}${charter.updated_by ? ` · ${charter.updated_by}` : ''}${charter.updated_at ? ` · ${formatTime(charter.updated_at)}` : ''}`));
    } else if (typeof charter === 'string' && charter.trim() !== '') {
      const isPath = !/\s/.test(charter.trim()) && /\.md$/i.test(charter.trim());
      section.append(isPath
        ? button(charter.trim(), 'channel-charter-link', () => this.services.openFile(channel, charter.trim()), { class: 'tp-link', data: { path: charter.trim() } })
        : h('p', { testid: 'channel-charter-text', class: 'tp-drawer__text' }, charter));
    } else {
      section.append(h('p', { class: 'tp-empty' }, 'No room charter.'));
    }
    return section;
  }
}

function memberOf(entry: Member | string): Member {
  if (typeof entry === 'string') return { agent_id: entry, role: '', about: '', mission: '' };
  return { agent_id: String(entry.agent_id ?? ''), role: entry.role ?? '', about: entry.about ?? '', mission: entry.mission ?? '' };
}
