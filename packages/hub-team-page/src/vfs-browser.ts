/**
 * The selected channel's files: list (with a prefix filter), read, edit and create, delete. Writes
 * carry `expect_version` (the version that was read, 0 for a new path), so a concurrent edit comes
 * back as the hub's 409, shown verbatim; the editor keeps the text so nothing is lost.
 */
import { button, field, formatTime, h, replaceChildren } from './dom.js';
import type { FsEntry, FsFile } from './hub-types.js';
import type { PageServices } from './services.js';

export class VfsBrowser {
  readonly element: HTMLElement;
  private readonly list: HTMLElement;
  private readonly prefix: HTMLInputElement;
  private readonly path: HTMLInputElement;
  private readonly editor: HTMLTextAreaElement;
  private readonly version: HTMLElement;
  private readonly save: HTMLButtonElement;
  private channel: string | null = null;
  /** Version the editor's text is based on; 0 = a new file. */
  private baseVersion = 0;

  constructor(private readonly services: PageServices) {
    this.prefix = h('input', { testid: 'vfs-prefix', class: 'tp-input', attrs: { type: 'text', placeholder: 'prefix, e.g. notes/' } });
    this.list = h('ul', { testid: 'vfs-list', class: 'tp-list' });
    this.path = h('input', { testid: 'vfs-path', class: 'tp-input', attrs: { type: 'text', placeholder: 'folder/file.md' } });
    this.editor = h('textarea', { testid: 'vfs-editor', class: 'tp-input tp-input--area tp-input--code', attrs: { rows: 14, spellcheck: 'false' } });
    this.version = h('span', { testid: 'vfs-version', class: 'tp-vfs__version' }, 'new file');
    this.save = button('Save', 'vfs-save', () => void this.write(), { class: 'tp-button tp-button--primary' });
    this.element = h('section', { testid: 'vfs-view', class: 'tp-panel tp-vfs' },
      h('div', { class: 'tp-panel__bar' },
        h('h2', { class: 'tp-panel__title' }, 'Files'),
        this.prefix,
        button('List', 'vfs-refresh', () => void this.load()),
        button('New file', 'vfs-new', () => this.edit(null))),
      h('div', { class: 'tp-vfs__split' },
        this.list,
        h('div', { class: 'tp-vfs__editor' },
          h('div', { class: 'tp-composer__row' }, field('Path', this.path), this.version),
          this.editor,
          h('div', { class: 'tp-composer__row' }, this.save, button('Delete', 'vfs-delete', () => void this.remove(), { class: 'tp-button tp-button--danger' })))));
  }

  setChannel(channel: string | null): void {
    if (channel === this.channel) return;
    this.channel = channel;
    this.edit(null);
    replaceChildren(this.list);
  }

  async load(): Promise<void> {
    const channel = this.channel;
    if (!channel) return;
    const prefix = this.prefix.value.trim();
    const entries = await this.services.attempt(`listing files of ${channel}`, () => this.services.hub.fs_list(channel, prefix || undefined));
    if (!entries || channel !== this.channel) return;
    replaceChildren(this.list, ...(entries.length ? entries.map((e) => this.entry(e)) : [h('li', { testid: 'vfs-empty', class: 'tp-empty' }, 'No files.')]));
  }

  private entry(e: FsEntry): HTMLElement {
    return h('li', { testid: 'vfs-entry', class: 'tp-list__row', data: { path: e.path, version: e.version } },
      h('button', { testid: 'vfs-open', class: 'tp-link', attrs: { type: 'button' }, on: { click: () => void this.openPath(e.path) } }, e.path),
      h('span', { class: 'tp-list__detail' }, `v${e.version} · ${e.size ?? 0} B${e.encoding === 'base64' ? ' · binary' : ''} · ${e.updated_by ?? ''} ${formatTime(e.updated_at)}`),
      e.description ? h('span', { class: 'tp-list__title' }, e.description) : null);
  }

  /** Reads a file into the editor (a file row, or a link such as the room charter in the info drawer). */
  async openPath(path: string): Promise<void> {
    const channel = this.channel;
    if (!channel) return;
    const file = await this.services.attempt(`reading ${path}`, () => this.services.hub.fs_read(channel, path));
    if (file && channel === this.channel) this.edit(file);
  }

  /** Loads a file into the editor (null: an empty editor for a new file). */
  private edit(file: FsFile | null): void {
    const binary = file?.encoding === 'base64';
    this.baseVersion = file?.version ?? 0;
    this.path.value = file?.path ?? '';
    this.path.readOnly = file !== null;
    this.editor.value = binary ? '' : file?.content ?? '';
    this.editor.readOnly = binary;
    this.editor.placeholder = binary ? `binary file (${file?.mime ?? 'unknown type'}); not editable here` : '';
    this.editor.dataset.path = file?.path ?? '';
    this.version.textContent = file ? `v${file.version}${binary ? ' · binary' : ''}` : 'new file';
    this.version.dataset.version = String(this.baseVersion);
    this.save.disabled = binary;
  }

  private async write(): Promise<void> {
    const channel = this.channel;
    const path = this.path.value.trim();
    if (!channel || !path) return;
    const written = await this.services.attempt(`saving ${path}`, () => this.services.hub.fs_put(channel, path, { content: this.editor.value, expect_version: this.baseVersion }));
    if (!written) return;
    this.edit(written);
    await this.load();
  }

  private async remove(): Promise<void> {
    const channel = this.channel;
    const path = this.path.value.trim();
    if (!channel || !path || this.baseVersion === 0) return;
    const done = await this.services.attempt(`deleting ${path}`, () => this.services.hub.fs_delete(channel, path, this.baseVersion));
    if (done === undefined) return;
    this.edit(null);
    await this.load();
  }
}
