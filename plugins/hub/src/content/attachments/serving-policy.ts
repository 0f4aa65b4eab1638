/**
 * How attachment bytes are served so a browser never runs them: the declared type is kept unless
 * it is active content (html, svg, xml, script) or malformed, `nosniff` stops guessing, and only a
 * short allowlist of raster images is shown inline — never SVG.
 */

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;
const ACTIVE_SUBTYPE = /(html|svg|xml|javascript|ecmascript|jscript)/;
const ACTIVE_SUBTYPES = new Set(['js', 'x-js']);
const INLINE_RASTER = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp']);
export const SAFE_FALLBACK_TYPE = 'application/octet-stream';

/** The `type/subtype` part of a declared content type, lowercased. */
export function essence(declared: string): string {
  return declared.split(';')[0]!.trim().toLowerCase();
}

/** The Content-Type to serve for a declared type. */
export function servedContentType(declared: string): string {
  const e = essence(declared);
  if (!MEDIA_TYPE.test(e) || /[^\x20-\x7e]/.test(declared)) return SAFE_FALLBACK_TYPE;
  const subtype = e.slice(e.indexOf('/') + 1);
  if (ACTIVE_SUBTYPE.test(subtype) || ACTIVE_SUBTYPES.has(subtype)) return SAFE_FALLBACK_TYPE;
  return declared.trim();
}

export function isInlineRaster(declared: string): boolean {
  return INLINE_RASTER.has(essence(declared));
}

/** A header-safe copy of the declared type for `X-Declared-Content-Type`. */
export function headerSafe(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '');
}
