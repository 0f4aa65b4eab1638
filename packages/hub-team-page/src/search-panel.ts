/**
 * Search across the seat's channels (`GET /search`): a query and an optional kind. Hits come in
 * sections; each shows its snippet with the hub's highlights (code-point offsets) as <mark> runs.
 * No bodies and no scores are served, so none are shown. A message hit opens its thread.
 */
import { button, field, formatTime, h, replaceChildren } from './dom.js';
import { highlightSegments } from './highlights.js';
import type { SearchHit, SearchReport } from './hub-types.js';
import type { PageServices } from './services.js';

export const SEARCH_KINDS = ['', 'message', 'decision', 'claim', 'work', 'file', 'agent'] as const;

const SECTION_ORDER = ['open_threads', 'messages', 'decisions', 'work', 'files', 'people'] as const;

/** Every hit of a report, section by section, without repeats. */
export function hitsOf(report: SearchReport | SearchHit[]): SearchHit[] {
  if (Array.isArray(report)) return report;
  const seen = new Set<string>();
  const out: SearchHit[] = [];
  for (const key of SECTION_ORDER) {
    for (const hit of report[key]?.hits ?? []) {
      const id = `${hit.kind}\u0000${hit.channel ?? ''}\u0000${hit.ref}`;
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(hit);
    }
  }
  return out;
}

export function renderSnippet(snippet: string, highlights: SearchHit['highlights'] | null | undefined): HTMLElement {
  return h('span', { testid: 'search-snippet', class: 'tp-search__snippet' },
    ...highlightSegments(snippet, highlights).map((seg) => seg.highlighted ? h('mark', { testid: 'search-highlight', class: 'tp-mark' }, seg.text) : seg.text));
}

export class SearchPanel {
  readonly element: HTMLElement;
  private readonly q: HTMLInputElement;
  private readonly kind: HTMLSelectElement;
  private readonly results: HTMLElement;

  constructor(private readonly services: PageServices) {
    this.q = h('input', { testid: 'search-q', class: 'tp-input', attrs: { type: 'search', placeholder: 'Search messages, files, people…', maxlength: 256 } });
    this.kind = h('select', { testid: 'search-kind', class: 'tp-input' }, ...SEARCH_KINDS.map((k) => h('option', { attrs: { value: k } }, k || 'any kind')));
    this.results = h('div', { testid: 'search-results', class: 'tp-search__results' });
    this.element = h('section', { testid: 'search-view', class: 'tp-panel' },
      h('form', { testid: 'search-form', class: 'tp-panel__bar', on: { submit: (event) => { event.preventDefault(); void this.run(); } } },
        h('h2', { class: 'tp-panel__title' }, 'Search'),
        field('Query', this.q), field('Kind', this.kind),
        h('button', { testid: 'search-submit', class: 'tp-button tp-button--primary', attrs: { type: 'submit' } }, 'Search')),
      this.results);
  }

  async run(): Promise<void> {
    const q = this.q.value.trim();
    if (!q) return;
    const kind = this.kind.value;
    const report = await this.services.attempt(`searching for “${q}”`, () => this.services.hub.search(kind ? { q, kind } : { q }));
    if (!report) return;
    const hits = hitsOf(report);
    const notice = !Array.isArray(report) && typeof report.notice === 'string' && report.notice ? h('p', { testid: 'search-notice', class: 'tp-search__notice' }, report.notice) : null;
    replaceChildren(this.results, notice,
      hits.length ? h('ul', { class: 'tp-list' }, ...hits.map((hit) => this.hit(hit))) : h('p', { testid: 'search-empty', class: 'tp-empty' }, 'No hits.'));
  }

  private hit(hit: SearchHit): HTMLElement {
    const opens = hit.channel !== null && hit.seq !== null && (hit.kind === 'message' || hit.kind === 'file');
    return h('li', { testid: 'search-hit', class: 'tp-list__row tp-search__hit', data: { kind: hit.kind, ref: hit.ref, channel: hit.channel ?? '', seq: hit.seq ?? '' } },
      h('span', { class: 'tp-chip' }, hit.kind),
      hit.channel ? h('span', { class: 'tp-list__where' }, hit.seq !== null ? `${hit.channel} #${hit.seq}` : hit.channel) : null,
      hit.sender ? h('span', { class: 'tp-list__who' }, hit.sender) : null,
      hit.status ? h('span', { class: `tp-status tp-status--${hit.status}` }, hit.status) : null,
      hit.title ? h('span', { testid: 'search-hit-title', class: 'tp-list__title' }, hit.title) : null,
      renderSnippet(hit.snippet ?? '', hit.highlights),
      hit.thread_hits ? h('span', { class: 'tp-list__detail' }, `${hit.thread_hits} in thread`) : null,
      h('time', { class: 'tp-list__time' }, formatTime(hit.created_at)),
      opens ? button('Open', 'search-open', () => this.services.open(hit.channel!, hit.seq!), { class: 'tp-button tp-button--small' }) : null);
  }
}
