/**
 * The team page's plain modules (run in Node) and its three style sheets: what the page computes
 * without a browser, and the rules the styles keep (components class-scoped, the theme custom
 * properties only, full.css both).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import {
  assistantQuestion, attachmentsOf, dmChannelName, highlightSegments, hubBaseFor, isInlineRaster, reconnectDelay, threadOrder, verdictOf, workIdsOf,
} from '@keel/hub-team-page';
import { PAGE_DIR } from './helpers/team-page.js';

/** Selectors of a CSS file's rules, at any nesting depth (comments and declarations dropped). */
function cssRules(text: string): Array<{ selector: string; declarations: string[] }> {
  const rules: Array<{ selector: string; declarations: string[] }> = [];
  const clean = text.replace(/\/\*[\s\S]*?\*\//g, '');
  const stack: string[] = [];
  let buffer = '';
  for (const ch of clean) {
    if (ch === '{') {
      stack.push(buffer.trim());
      buffer = '';
    } else if (ch === '}') {
      const selector = stack.pop() ?? '';
      const declarations = buffer.split(';').map((d) => d.trim()).filter(Boolean);
      if (!selector.startsWith('@')) rules.push({ selector, declarations });
      buffer = '';
    } else if (ch === ';' && stack.length === 0) {
      buffer = ''; // a top-level at-rule such as @import
    } else {
      buffer += ch;
    }
  }
  return rules;
}

describe('team page helpers (plain modules, run in Node)', () => {
  it('cuts highlights by code points, so astral characters before a match do not shift it', () => {
    // '🦓' is one code point and two UTF-16 units; the hub's offsets count code points.
    const marked = (snippet: string, hl: Array<[number, number]>) => highlightSegments(snippet, hl).filter((s) => s.highlighted).map((s) => s.text);
    expect(marked('🦓 zebra 🦓🦓 zebra', [[2, 5], [11, 5]])).to.deep.equal(['zebra', 'zebra']);
    expect(marked('é𝒳 ok', [[1, 1]])).to.deep.equal(['𝒳']);
    expect(highlightSegments('abc', [[1, 99], [-5, 2], [0, 0]]).map((s) => [s.text, s.highlighted])).to.deep.equal([['a', false], ['bc', true]]);
    expect(highlightSegments('abc', null).map((s) => s.text).join('')).to.equal('abc');
  });

  it('orders a thread: replies under their parent, orphans as roots', () => {
    const rows = threadOrder([
      { id: 'c', seq: 3, reply_to: 'a' },
      { id: 'a', seq: 1, reply_to: null },
      { id: 'b', seq: 2, reply_to: null },
      { id: 'd', seq: 4, reply_to: 'c' },
      { id: 'e', seq: 5, reply_to: 'gone' },
    ]);
    expect(rows.map((r) => `${r.message.id}${r.depth}${r.orphan ? '!' : ''}`)).to.deep.equal(['a0', 'c1', 'd2', 'b0', 'e0!']);
  });

  it('finds the hub base from the page path and backs off the socket up to 15 s', () => {
    expect(hubBaseFor('/hub/ui/', null)).to.equal('/hub');
    expect(hubBaseFor('/proxy/hub/ui/index.html', undefined)).to.equal('/proxy/hub');
    expect(hubBaseFor('/ui/', '')).to.equal('');
    expect(hubBaseFor('/hub/ui/', 'https://hub.example')).to.equal('https://hub.example');
    expect([1, 2, 5, 15, 40].map(reconnectDelay)).to.deep.equal([1000, 2000, 5000, 15000, 15000]);
  });

  it('finds work ids in item_ref and text, never in dates or glued words', () => {
    expect(workIdsOf({ title: 'About hub-0042', body: 'see team-page-0007, hub-0042 and 2026-0801; nothub-0042x', data: { item_ref: 'kernel-0001' } }))
      .to.deep.equal(['kernel-0001', 'hub-0042', 'team-page-0007']);
    expect(workIdsOf({ title: '', body: 'hub-001 HUB-0001 hub-0001x 7hub-0001', data: { item_ref: 'Not An Id' } })).to.deep.equal([]);
  });

  it('reads the /assistant command, DM names, attachment refs and ledger verdicts', () => {
    expect(assistantQuestion('/assistant what next?')).to.equal('what next?');
    expect(assistantQuestion('  /assistant')).to.equal('');
    expect(assistantQuestion('/assistants are here')).to.equal(null);
    expect(assistantQuestion('hello /assistant x')).to.equal(null);
    expect(dmChannelName('zed', 'amy')).to.equal('dm:amy--zed');
    const refs = attachmentsOf({ data: { attachments: [{ id: 'a', filename: 'x.png', content_type: 'image/png', size: 3 }, { nope: 1 }] }, attachments: [{ id: 'a' }, { id: 'b', filename: 'y.svg', content_type: 'image/svg+xml', size: 9 }] });
    expect(refs.map((r) => r.id)).to.deep.equal(['a', 'b']);
    expect(['image/png', 'IMAGE/JPEG; q=1', 'image/svg+xml', 'text/html', ''].map(isInlineRaster)).to.deep.equal([true, true, false, false, false]);
    const base = { computed_head: 'h', hashed: 1, legacy: 0, redacted: 0 };
    expect(verdictOf({ ...base, ok: true, broken_at: null, head_mismatch: false })).to.equal('ok');
    expect(verdictOf({ ...base, ok: false, broken_at: 3, head_mismatch: false })).to.equal('broken');
    expect(verdictOf({ ...base, ok: false, broken_at: null, head_mismatch: true })).to.equal('head-mismatch');
  });
});

describe('team page styles', () => {
  const read = (name: string) => readFileSync(path.join(PAGE_DIR, 'styles', name), 'utf8');

  it('components.css scopes every selector to a class and names no bare element', () => {
    const rules = cssRules(read('components.css'));
    expect(rules.length).to.be.greaterThan(20);
    const offenders: string[] = [];
    for (const { selector } of rules) {
      for (const complex of selector.split(',').map((s) => s.trim())) {
        // Compound selectors, split at combinators; each must start with a class, attribute or pseudo-class.
        const compounds = complex.split(/\s*[>+~]\s*|\s+/).filter(Boolean);
        const first = compounds[0] ?? '';
        if (!first.startsWith('.')) offenders.push(complex);
        else if (compounds.some((c) => /^[a-z*]/i.test(c))) offenders.push(complex);
      }
    }
    expect(offenders, 'selectors not scoped to a class').to.deep.equal([]);
  });

  it('theme.css declares custom properties only, including the documented set', () => {
    const text = read('theme.css');
    const rules = cssRules(text);
    const declarations = rules.flatMap((r) => r.declarations);
    expect(declarations.length).to.be.greaterThan(10);
    expect(declarations.filter((d) => !d.startsWith('--')), 'non-custom-property declarations').to.deep.equal([]);
    for (const name of ['--bg-primary', '--bg-secondary', '--bg-tertiary', '--ui-surface-1', '--ui-border-1', '--text-primary', '--text-secondary', '--text-muted', '--accent', '--accent-subtle', '--font-sm', '--font-md']) {
      expect(text, name).to.include(`${name}:`);
    }
  });

  it('full.css is the theme plus the components, and components read the theme', () => {
    const full = read('full.css');
    expect(full).to.match(/@import url\("\.\/theme\.css"\)/);
    expect(full).to.match(/@import url\("\.\/components\.css"\)/);
    const components = read('components.css');
    for (const name of ['--bg-primary', '--ui-border-1', '--text-muted', '--accent', '--accent-subtle']) expect(components).to.include(`var(${name})`);
  });
});
