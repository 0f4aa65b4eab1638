/**
 * A message's attachments: a link per file (name, type, size) that downloads the bytes with the
 * seat key, and a raster image shown inline beneath its link. Nothing else is ever inlined.
 */
import { formatSize, isInlineRaster, type AttachmentLoader } from './attachments.js';
import { h } from './dom.js';
import type { AttachmentRef } from './hub-types.js';

export function renderAttachments(channel: string, refs: AttachmentRef[], loader: AttachmentLoader, download: (ref: AttachmentRef) => void): HTMLElement {
  return h('ul', { testid: 'message-attachments', class: 'tp-attachments' }, ...refs.map((ref) => {
    const inline = isInlineRaster(ref.content_type);
    const link = h('a', {
      testid: 'attachment-link',
      class: 'tp-attachment__link',
      attrs: { href: loader.href(channel, ref.id), download: ref.filename, rel: 'noopener' },
      on: { click: (event) => { event.preventDefault(); download(ref); } },
    }, ref.filename);
    let preview: HTMLElement | null = null;
    if (inline) {
      const img = h('img', { testid: 'attachment-image', class: 'tp-attachment__image', attrs: { alt: ref.filename, decoding: 'async' }, data: { state: 'loading' } });
      loader.image(channel, ref).then((url) => {
        if (url) {
          img.src = url;
          img.dataset.state = 'shown';
        } else {
          preview?.remove(); // the hub served another type: no inline view
        }
      }, () => {
        img.dataset.state = 'error';
      });
      preview = h('div', { class: 'tp-attachment__preview' }, img);
    }
    return h('li', { testid: 'attachment', class: 'tp-attachment', data: { id: ref.id, type: ref.content_type, inline: inline ? 'true' : 'false' } },
      link,
      h('span', { class: 'tp-attachment__meta' }, [ref.content_type, formatSize(ref.size)].filter(Boolean).join(' · ')),
      preview);
  }));
}
