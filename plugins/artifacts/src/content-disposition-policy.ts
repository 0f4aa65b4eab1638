/**
 * How an artifact's bytes are answered (seed §4.6): `access_action` (alias `access`, which wins)
 * `content`, `preview` or `download`. Only a raster image shows inline, and only when not asked for
 * a download; everything else, SVG and HTML first, is an attachment. The SDK's `sendFile` adds
 * nosniff and `Content-Security-Policy: sandbox` to every answer.
 */

/** Raster image types a browser only ever draws (never SVG, which runs script). */
export const INLINE_RASTER_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp']);

export type AccessAction = 'content' | 'preview' | 'download' | 'open' | 'read';
const ACTIONS = new Set<string>(['content', 'preview', 'download', 'open', 'read']);

/** The action asked for: `access` wins over `access_action`; anything unknown counts as `content` (reference §2.4). */
export function accessActionOf(query: { access_action?: string; access?: string }): AccessAction {
  const asked = (query.access ?? query.access_action ?? 'content').toLowerCase();
  return (ACTIONS.has(asked) ? asked : 'content') as AccessAction;
}

export function dispositionFor(action: AccessAction, contentType: string): 'inline' | 'attachment' {
  return action !== 'download' && INLINE_RASTER_TYPES.has(contentType) ? 'inline' : 'attachment';
}
