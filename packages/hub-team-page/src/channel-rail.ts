/**
 * The channel rail: rooms and direct messages (by the `dm:` prefix) from `/channels`. Public rooms
 * the seat has not joined are listed too (the hub lists them), marked as such.
 */
import { h, replaceChildren } from './dom.js';
import type { ChannelRow } from './hub-types.js';

export const DM_PREFIX = 'dm:';

/** The direct channel of two seats, as the hub names it: `dm:<a>--<b>` with the ids sorted. */
export function dmChannelName(a: string, b: string): string {
  return `${DM_PREFIX}${[a, b].sort().join('--')}`;
}

/** The other seat of a `dm:<a>--<b>` channel, as the viewer reads it. */
export function dmPeer(name: string, seat: string | null): string {
  const pair = name.slice(DM_PREFIX.length).split('--');
  return pair.find((id) => id !== seat) ?? pair[0] ?? name;
}

export class ChannelRail {
  readonly element: HTMLElement;
  private readonly rooms: HTMLElement;
  private readonly dms: HTMLElement;

  constructor(private readonly onSelect: (name: string) => void) {
    this.rooms = h('ul', { testid: 'rail-rooms', class: 'tp-rail__list' });
    this.dms = h('ul', { testid: 'rail-dms', class: 'tp-rail__list' });
    this.element = h('nav', { testid: 'channel-rail', class: 'tp-rail', attrs: { 'aria-label': 'Channels' } },
      h('h2', { class: 'tp-rail__heading' }, 'Channels'), this.rooms,
      h('h2', { class: 'tp-rail__heading' }, 'Direct messages'), this.dms);
  }

  render(rows: ChannelRow[], selected: string | null, seat: string | null, unseen: ReadonlyMap<string, number>): void {
    const sorted = [...rows].sort((a, b) => a.name.localeCompare(b.name));
    const item = (row: ChannelRow) => {
      const dm = row.name.startsWith(DM_PREFIX);
      const count = unseen.get(row.name) ?? 0;
      const classes = ['tp-rail__row'];
      if (row.name === selected) classes.push('tp-rail__row--selected');
      if (!row.member) classes.push('tp-rail__row--visitor');
      return h('li', { class: 'tp-rail__item' }, h('button', {
        testid: 'channel-row',
        class: classes.join(' '),
        attrs: { type: 'button', 'aria-current': row.name === selected ? 'true' : null, title: row.name },
        data: { channel: row.name, member: row.member ? 'true' : 'false', dm: dm ? 'true' : 'false' },
        on: { click: () => this.onSelect(row.name) },
      },
      h('span', { class: 'tp-rail__name' }, dm ? `@${dmPeer(row.name, seat)}` : `#${row.name}`),
      row.private && !dm ? h('span', { class: 'tp-rail__lock', attrs: { title: 'private' } }, 'private') : null,
      !row.member ? h('span', { class: 'tp-rail__visitor' }, 'not joined') : null,
      count > 0 ? h('span', { testid: 'channel-unseen', class: 'tp-badge tp-badge--count' }, String(count)) : null));
    };
    const rooms = sorted.filter((r) => !r.name.startsWith(DM_PREFIX));
    const dms = sorted.filter((r) => r.name.startsWith(DM_PREFIX));
    replaceChildren(this.rooms, ...(rooms.length ? rooms.map(item) : [h('li', { class: 'tp-empty' }, 'No channels.')]));
    replaceChildren(this.dms, ...(dms.length ? dms.map(item) : [h('li', { class: 'tp-empty' }, 'No direct messages.')]));
  }
}
