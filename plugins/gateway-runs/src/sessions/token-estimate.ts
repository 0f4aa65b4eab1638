/**
 * The token estimate the history window sizes turns with (reference gateway-surfaces §5.3): a message
 * counts as the text `"<role>: <content>"` at max(1, floor(characters / 4)) tokens (0 for no text),
 * and each media part of a content-part list counts a flat 512 tokens.
 */

/** The name recorded as `_runtime.session_history.token_estimator`. */
export const TOKEN_ESTIMATOR = 'keel.session_history.estimate_message_tokens';

/** What one media part (image, audio, file, ...) of a content-part list counts, whatever its bytes. */
export const MEDIA_PART_TOKENS = 512;

const TEXT_PART_TYPES = new Set(['text', 'input_text', 'output_text']);

export interface ReplayMessage {
  role: 'user' | 'assistant';
  /** A string, or a content-part list (`[{type: 'text', text}, {type: 'image_url', ...}]`). */
  content: string | unknown[];
  metadata: Record<string, unknown>;
}

/** The text of a part when it is a text part, else undefined (a media part). */
export function textOfPart(part: unknown): string | undefined {
  if (typeof part === 'string') return part;
  if (part !== null && typeof part === 'object' && !Array.isArray(part)) {
    const { type, text } = part as { type?: unknown; text?: unknown };
    if (typeof text === 'string' && (type === undefined || (typeof type === 'string' && TEXT_PART_TYPES.has(type)))) return text;
  }
  return undefined;
}

/** Estimated tokens of one message. */
export function estimateMessageTokens(message: Pick<ReplayMessage, 'role' | 'content'>): number {
  let text: string;
  let media = 0;
  if (typeof message.content === 'string') text = message.content;
  else {
    const texts: string[] = [];
    for (const part of message.content) {
      const partText = textOfPart(part);
      if (partText === undefined) media++;
      else texts.push(partText);
    }
    text = texts.join('\n');
  }
  const full = message.role ? `${message.role}: ${text}` : text;
  return textTokens(full) + media * MEDIA_PART_TOKENS;
}

function textTokens(text: string): number {
  const chars = codePoints(text);
  return chars === 0 ? 0 : Math.max(1, Math.floor(chars / 4));
}

/** Characters as the origin counts them (code points: a character outside the BMP is one, not two UTF-16 units). */
function codePoints(text: string): number {
  let surrogatePairs = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        surrogatePairs++;
        i++;
      }
    }
  }
  return text.length - surrogatePairs;
}
