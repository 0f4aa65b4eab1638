/**
 * What every docs corpus answer shares (seed 000 §2.10 "Docs corpus response"): `{app, source,
 * chars, text}`, `chars` counted as the origin counts them (Unicode code points, Python's `len`),
 * and the 404 each unavailable corpus answers: a reason code and a sentence naming the cause.
 */
import { notFound, type HttpError } from '@keel/plugin-sdk';

export interface DocsCorpus {
  /** The display name of the application the text documents (`Keel` for the gateway itself). */
  app: string;
  /** Where the text came from: `env:KEEL_DOCS_CORPUS`, `checkout:llms.txt`, `packaged:llms.txt`, `app:<id>:llms.txt`. */
  source: string;
  chars: number;
  text: string;
}

export type CorpusReason = 'unknown_app' | 'app_not_running' | 'app_docs_unavailable' | 'docs_corpus_missing' | 'docs_corpus_refused';

export function corpusNotFound(reason: CorpusReason, message: string, extra: Record<string, unknown> = {}): HttpError {
  return notFound({ reason_code: reason, message, ...extra }, { code: reason });
}

export function corpusOf(app: string, source: string, text: string): DocsCorpus {
  return { app, source, chars: codePoints(text), text };
}

/** Text as UTF-8 or null when the bytes are not (a binary file is not documentation). */
export function utf8OrNull(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
}

function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
