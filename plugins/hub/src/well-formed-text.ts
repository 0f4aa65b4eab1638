/**
 * Hub text must be well-formed Unicode. A lone UTF-16 surrogate (an unpaired \uD800–\uDFFF, which
 * JSON's `\uXXXX` escapes can carry) would be hashed as sent but stored as U+FFFD, because msgpack
 * and LMDB encode UTF-8, and the channel's chain would never verify again. The hub refuses such
 * input with 400 rather than repairing it, so what is hashed is always exactly what is stored.
 */
import { badRequest, type AnyRoute } from '@keel/plugin-sdk';

// With the `u` flag a surrogate pair is one code point, so this matches only an unpaired half.
const LONE_SURROGATE = /\p{Surrogate}/u;
const wellFormed = (text: string) => !LONE_SURROGATE.test(text);

/** The path (`body.data.note`, `query.q`) of the first string or key holding a lone surrogate, else null. */
export function loneSurrogateAt(value: unknown, at: string): string | null {
  if (typeof value === 'string') return wellFormed(value) ? null : at;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = loneSurrogateAt(value[i], `${at}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  // Raw bodies (attachment bytes) are not text.
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value) && !(value instanceof ArrayBuffer)) {
    for (const [key, inner] of Object.entries(value)) {
      if (!wellFormed(key)) return `${at} (a key)`;
      const found = loneSurrogateAt(inner, `${at}.${key}`);
      if (found) return found;
    }
  }
  return null;
}

/** Throws the hub's 400 when `value` holds a lone surrogate anywhere. */
export function refuseLoneSurrogates(value: unknown, at: string): void {
  const found = loneSurrogateAt(value, at);
  if (found) throw badRequest(`${found} contains a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape); send well-formed Unicode text`);
}

/** Wraps every route so its params, query, body and uploaded file names are checked before the handler runs. */
export function requireWellFormedText(routes: AnyRoute[]): AnyRoute[] {
  return routes.map((r) => ({
    ...r,
    handler: (ctx) => {
      refuseLoneSurrogates(ctx.params, 'path');
      refuseLoneSurrogates(ctx.query, 'query');
      refuseLoneSurrogates(ctx.body, 'body');
      for (const files of Object.values(ctx.files ?? {})) for (const f of files) refuseLoneSurrogates(f.filename, `file name of ${f.fieldName}`);
      return r.handler(ctx);
    },
  }));
}
