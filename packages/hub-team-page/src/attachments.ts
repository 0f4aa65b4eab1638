/**
 * Attachment bytes for the page. The hub serves them only to a member's seat key, which a plain
 * link or <img> cannot carry, so the page fetches them with the client (`attachment_blob`) and
 * hands the browser a `blob:` URL: inline for a raster image, a download for anything else.
 * Only a raster allowlist is ever shown inline (never SVG), and only when both the declared type
 * and the type the hub served are on it. Object URLs are revoked when the channel changes.
 */
import type { AttachmentRef, TeamHub } from './hub-types.js';

/** Raster types shown inline; SVG and every other type only as a download. */
export const INLINE_RASTER: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp']);

/** The `type/subtype` of a content type, lowercased. */
export function essence(contentType: string | null | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

export function isInlineRaster(contentType: string | null | undefined): boolean {
  return INLINE_RASTER.has(essence(contentType));
}

/** The attachments a message or envelope carries: `data.attachments` and a top-level `attachments`, each id once. */
export function attachmentsOf(message: { data?: { attachments?: unknown } | null; attachments?: unknown }): AttachmentRef[] {
  const out: AttachmentRef[] = [];
  for (const list of [message.data?.attachments, message.attachments]) {
    if (!Array.isArray(list)) continue;
    for (const item of list as unknown[]) {
      const a = item as Partial<AttachmentRef> | null;
      if (!a || typeof a.id !== 'string' || a.id === '' || out.some((o) => o.id === a.id)) continue;
      out.push({
        id: a.id,
        filename: typeof a.filename === 'string' && a.filename !== '' ? a.filename : a.id.slice(0, 12),
        content_type: typeof a.content_type === 'string' ? a.content_type : '',
        size: typeof a.size === 'number' ? a.size : 0,
      });
    }
  }
  return out;
}

/** A byte count for people: `512 B`, `1.5 KB`, `3.2 MB`. */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1024) return `${Math.max(0, Math.round(bytes || 0))} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export class AttachmentLoader {
  /** Inline image URLs by `channel\0id`; null when the served bytes are not an inline raster. */
  private readonly images = new Map<string, Promise<string | null>>();
  private readonly urls = new Set<string>();

  constructor(private readonly hub: TeamHub) {}

  /** The link a row shows (the client's `attachment_url`; a click fetches with the seat key instead). */
  href(channel: string, id: string): string {
    return this.hub.attachment_url(channel, id);
  }

  /** A `blob:` URL of a raster image, fetched once per channel view; null when the hub served another type. */
  image(channel: string, ref: AttachmentRef): Promise<string | null> {
    const key = `${channel}\u0000${ref.id}`;
    let pending = this.images.get(key);
    if (!pending) {
      pending = this.hub.attachment_blob(channel, ref.id).then((blob) => {
        if (!isInlineRaster(ref.content_type) || !isInlineRaster(blob.type)) return null;
        const url = URL.createObjectURL(blob);
        this.urls.add(url);
        return url;
      });
      pending.catch(() => this.images.delete(key)); // a failed read may be retried by the next render
      this.images.set(key, pending);
    }
    return pending;
  }

  /** Fetches the bytes with the seat key and saves them under the attachment's file name (never rendered). */
  async download(channel: string, ref: AttachmentRef): Promise<void> {
    const blob = await this.hub.attachment_blob(channel, ref.id);
    const url = URL.createObjectURL(new Blob([blob], { type: 'application/octet-stream' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = ref.filename;
    link.hidden = true;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 30_000);
  }

  /** Forgets every fetched image and revokes its URL (channel change, sign-out, unmount). */
  clear(): void {
    for (const url of this.urls) URL.revokeObjectURL(url);
    this.urls.clear();
    this.images.clear();
  }
}
