/**
 * Expands local files (`POST /v1/files`) into content the upstream accepts (reference §2.5): images
 * become data URLs, PDFs file parts, text files a text part naming the file. A text file over
 * 1,000,000 bytes, a non-image sent as an image, an unknown id or a kind the upstream cannot read
 * is refused (422), never truncated or guessed.
 */
import { contentTypeOfName, FALLBACK_CONTENT_TYPE, unprocessable } from '@keel/plugin-sdk';
import type { FileStore } from '../contracts.js';

/** The largest text file inlined into a prompt. */
export const MAX_INLINE_TEXT_BYTES = 1_000_000;

const TEXT_TYPE = /^text\/|json|xml|javascript|yaml|csv|markdown/i;

/** An upstream chat content part. */
export type ChatPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } }
  | { type: 'file'; file: { filename: string; file_data: string } };

export async function expandFile(files: FileStore | undefined, fileId: string, as: 'image' | 'any', detail?: string): Promise<ChatPart> {
  const file = files ? await files.read(fileId) : null;
  if (!file) throw unprocessable(`Unknown local file id \`${fileId}\`. Upload it first with \`POST /v1/files\`.`, { code: 'unknown_file_id', field: 'file_id' });
  const type = file.content_type && file.content_type !== FALLBACK_CONTENT_TYPE ? file.content_type : contentTypeOfName(file.filename);
  const dataUrl = () => `data:${type.split(';')[0]};base64,${file.bytes.toString('base64')}`;
  if (type.startsWith('image/')) return { type: 'image_url', image_url: { url: dataUrl(), ...(detail ? { detail } : {}) } };
  if (as === 'image') throw unprocessable(`The local file \`${fileId}\` (${type}) is not an image; send it as a file part instead.`, { code: 'invalid_file_kind', field: 'file_id' });
  if (type === 'application/pdf') return { type: 'file', file: { filename: file.filename, file_data: dataUrl() } };
  if (TEXT_TYPE.test(type)) {
    if (file.bytes.length > MAX_INLINE_TEXT_BYTES) {
      throw unprocessable(`The local text file \`${fileId}\` is ${file.bytes.length} bytes; at most ${MAX_INLINE_TEXT_BYTES} bytes are inlined into a prompt.`, { code: 'file_too_large', field: 'file_id' });
    }
    return { type: 'text', text: `Uploaded file \`${file.filename}\` (${type}):\n\n${file.bytes.toString('utf8')}` };
  }
  throw unprocessable(`The local file \`${fileId}\` (${type}) cannot be sent to the upstream: only images, PDFs and text files are.`, { code: 'invalid_file_kind', field: 'file_id' });
}

/** Raw base64 `file_data` with a `filename`, as a data URL typed by the name's extension. */
export function fileDataUrl(fileData: string, filename: unknown): string {
  if (fileData.startsWith('data:')) return fileData;
  const type = typeof filename === 'string' ? contentTypeOfName(filename) : FALLBACK_CONTENT_TYPE;
  if (type === FALLBACK_CONTENT_TYPE) {
    throw unprocessable('`input_file.file_data` needs a `filename` with a recognisable extension (such as .pdf or .txt) to know its type.', { code: 'invalid_file', field: 'filename' });
  }
  return `data:${type};base64,${fileData}`;
}
