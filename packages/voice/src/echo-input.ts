/**
 * A caller's value quoted back in an error sentence: one line, no control characters, at most 64
 * characters, so a hostile input cannot make an error huge or forge extra lines in a log.
 */
export function echoInput(value: unknown): string {
  // eslint-disable-next-line no-control-regex
  const text = String(value).replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
  return text.length > 64 ? `${text.slice(0, 63)}…` : text;
}
