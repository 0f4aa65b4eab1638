/** Caps refuse, never trim: the hub will not choose which characters to drop. */
import { badRequest, payloadTooLarge } from '@keel/plugin-sdk';

export function capText(text: string, cap: number, what = 'text'): string {
  const length = [...text].length;
  if (length > cap) {
    throw badRequest(`${what} is ${length} characters; the cap is ${cap}. Shorten it — the hub will not choose which ${length - cap} characters to drop.`);
  }
  return text;
}

export function capBytes(text: string, cap: number, what: string): string {
  if (Buffer.byteLength(text) > cap) throw payloadTooLarge(`${what} exceeds ${cap} bytes`);
  return text;
}

/** Strips control characters except line breaks and tabs. */
export function sanitize(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '');
}
