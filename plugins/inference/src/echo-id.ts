/**
 * A caller-supplied id as it may appear in an error message: long ids are cut with an ellipsis, so
 * a refusal never echoes a megabyte back (issue 9 item 16) and stays a readable sentence.
 */
const MAX_ECHO = 120;

export function echoId(id: string): string {
  const chars = [...id];
  return chars.length <= MAX_ECHO ? id : `${chars.slice(0, MAX_ECHO).join('')}… (${chars.length} characters)`;
}
