/**
 * The composer's `/assistant <question>` command: recognised only when the host gave an advisor.
 * The question goes to the advisor and its answer stays in the page; nothing is posted to the hub.
 */

export const ASSISTANT_COMMAND = '/assistant';

/** The question of an `/assistant` body (`''` when none was typed), or null when the body is not the command. */
export function assistantQuestion(body: string): string | null {
  const text = body.trimStart();
  if (!text.startsWith(ASSISTANT_COMMAND)) return null;
  const rest = text.slice(ASSISTANT_COMMAND.length);
  if (rest !== '' && !/^\s/.test(rest)) return null; // `/assistantfoo` is ordinary text
  return rest.trim();
}
