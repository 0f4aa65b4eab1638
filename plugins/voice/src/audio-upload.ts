/**
 * Reads one `multipart/form-data` audio upload (`/v1/audio/transcriptions`, `/v1/voice/clone`)
 * straight from the request with busboy, bounded: one file part `file` of at most `maxFileBytes`,
 * kept in memory (the engines take bytes; the per-process concurrency limit bounds how many such
 * buffers exist at once), and at most `maxFields` short text fields. The first refusal ends the read
 * and closes the connection, so a client that keeps sending past a limit is read no further.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { badRequest, formatBytes, HttpError, isHttpError, payloadTooLarge } from '@keel/plugin-sdk';

export interface UploadLimits {
  maxFileBytes: number;
  maxFields: number;
  maxFieldBytes: number;
  /** The setting that raises `maxFileBytes`, named in the 413 sentence. */
  fileSetting: string;
}

export interface ReceivedAudio {
  bytes: Buffer;
  /** The name the client sent (only its suffix is used, to tell the format). */
  filename: string;
  mimeType: string;
}

export interface AudioUpload {
  fields: Map<string, string>;
  file: ReceivedAudio | null;
}

export const FILE_FIELD = 'file';
/** Room for the parts' boundaries and headers beyond the file and the fields (busboy caps a part's headers at 16 KiB each). */
const PART_OVERHEAD_BYTES = 17 * 1024;

/** A 415 for a body that is not multipart at all: the route reads nothing of it. */
export function requireMultipart(contentType: string | undefined): void {
  if (!/^multipart\/form-data\s*;/i.test(contentType ?? '')) {
    throw new HttpError(415, `Send the audio as multipart/form-data with the file in the field 'file' (got Content-Type: ${(contentType || 'none').slice(0, 100)}).`, { code: 'unsupported_media_type', headers: { connection: 'close' } });
  }
}

/**
 * Reads the upload; `signal` (the deadline, or the client gone) stops the read with its reason
 * (an HttpError, such as the deadline's 504, is answered with the connection closed).
 */
export async function readAudioUpload(req: IncomingMessage, limits: UploadLimits, signal?: AbortSignal): Promise<AudioUpload> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      // busboy drops what passes a limit and says so (the *Limit events below), which refuses the upload.
      limits: { files: 1, fields: limits.maxFields, fieldSize: limits.maxFieldBytes, parts: limits.maxFields + 1, headerPairs: 32, fieldNameSize: 100 },
    });
  } catch (err) {
    throw badRequest(`Send the audio as multipart/form-data with a boundary (${(err as Error).message}).`, { code: 'invalid_multipart' });
  }
  const fields = new Map<string, string>();
  let file: ReceivedAudio | null = null;
  let active: Readable | null = null;
  /** Settles when the file part has been read to its end (or failed). */
  let fileRead: Promise<void> = Promise.resolve();
  let failure: unknown = null;
  let finish = () => undefined as void;
  const fail = (err: unknown) => {
    if (failure === null) {
      if (isHttpError(err)) err.headers.connection = 'close';
      failure = err;
    }
    finish();
  };
  const tooLarge = () =>
    payloadTooLarge(`The audio file is larger than ${formatBytes(limits.maxFileBytes)}; send a shorter recording (setting ${limits.fileSetting}).`, { code: 'file_too_large', field: FILE_FIELD });

  const stop = () => fail(isHttpError(signal?.reason) ? signal.reason : badRequest('The upload was interrupted before its end.', { code: 'invalid_multipart' }));
  const done = new Promise<void>((resolve) => {
    finish = resolve;
    parser.on('field', (name: string, value: string, info: busboy.FieldInfo) => {
      const shown = name.slice(0, 100);
      if (info.nameTruncated) return fail(badRequest('A form field name is longer than 100 characters.', { code: 'field_too_large' }));
      if (info.valueTruncated) return fail(badRequest(`The form field '${shown}' is larger than ${formatBytes(limits.maxFieldBytes)} (setting limits.maxFieldBytes).`, { code: 'field_too_large', field: shown }));
      if (name === FILE_FIELD) return fail(badRequest("The form field 'file' must be a file part (with a filename), not a text value.", { code: 'invalid_multipart', field: FILE_FIELD }));
      if (fields.has(name)) return fail(badRequest(`The form field '${shown}' is sent twice; send it once.`, { code: 'duplicate_field', field: shown }));
      fields.set(name, value);
    });
    parser.on('file', (name: string, stream: Readable, info: busboy.FileInfo) => {
      // An error of a part the parser drops would otherwise go unheard and end the process.
      stream.on('error', () => undefined);
      if (name !== FILE_FIELD || failure) {
        if (name !== FILE_FIELD) fail(badRequest(`Unexpected file field '${name.slice(0, 100)}': send the audio in the field 'file'.`, { code: 'invalid_multipart', field: name.slice(0, 100) }));
        stream.resume();
        return;
      }
      active = stream;
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxFileBytes) {
          // Stop at once: the rest of a too-large file is not worth receiving.
          chunks.length = 0;
          fail(tooLarge());
          return;
        }
        chunks.push(chunk);
      });
      fileRead = new Promise<void>((ended) => {
        stream.on('end', () => {
          if (!failure) file = { bytes: Buffer.concat(chunks, size), filename: info.filename ?? '', mimeType: info.mimeType ?? '' };
          ended();
        });
        stream.on('close', () => ended());
      });
    });
    parser.on('filesLimit', () => fail(badRequest("Send one file per request (the field 'file').", { code: 'too_many_files' })));
    parser.on('fieldsLimit', () => fail(badRequest(`The upload carries more than ${limits.maxFields} form fields.`, { code: 'too_many_fields' })));
    parser.on('partsLimit', () => fail(badRequest(`The upload carries more than ${limits.maxFields + 1} parts.`, { code: 'too_many_fields' })));
    parser.on('error', (err: Error) => fail(unreadable(err)));
    parser.on('close', () => resolve());
    req.on('aborted', () => fail(badRequest('The upload was interrupted before its end.', { code: 'invalid_multipart' })));
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop, { once: true });
  });
  // The whole body is bounded too: busboy drops what passes a field's limit silently until the part
  // ends, so a field that never ends would otherwise be read for ever.
  const maxBody = limits.maxFileBytes + (limits.maxFields + 1) * (limits.maxFieldBytes + PART_OVERHEAD_BYTES);
  let bodyBytes = 0;
  const count = (chunk: Buffer) => {
    bodyBytes += chunk.length;
    if (bodyBytes > maxBody) {
      req.off('data', count);
      fail(tooLarge());
    }
  };
  req.on('data', count);
  req.pipe(parser);
  await done;
  req.off('data', count);
  signal?.removeEventListener('abort', stop);
  if (!failure) await fileRead;
  if (failure) {
    (active as Readable | null)?.destroy(new Error('the upload failed'));
    req.unpipe(parser);
    parser.destroy();
    // Whatever the client still sends is dropped unread; the answer closes the connection.
    req.resume();
    throw failure;
  }
  return { fields, file };
}

function unreadable(err: Error): Error {
  return badRequest(`The upload could not be read as multipart/form-data (${err.message.replace(/\.$/, '')}); send a complete body with its boundary.`, { code: 'invalid_multipart' });
}
