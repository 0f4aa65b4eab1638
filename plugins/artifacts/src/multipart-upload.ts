/**
 * Reads one `multipart/form-data` upload straight from the request with busboy, bounded: one file
 * part, at most `maxFields` other fields of at most `maxFieldBytes` each, a file of at most
 * `maxFileBytes` (hashed into the blob store's temporary file as it arrives; nothing is buffered).
 * Every way a body breaks these rules is a 400 or 413 sentence; a file that was being written is
 * discarded then.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { badRequest, formatBytes, isHttpError, payloadTooLarge } from '@keel/plugin-sdk';
import { BlobTooLarge, type BlobStore, type PendingBlob } from './blob-store.js';

export interface UploadLimits {
  maxFileBytes: number;
  maxFields: number;
  maxFieldBytes: number;
}

export interface ReceivedFile {
  blob: PendingBlob;
  /** The name the client sent (not yet cleaned). */
  filename: string;
  mimeType: string;
}

export interface ReceivedUpload {
  fields: Map<string, string>;
  file: ReceivedFile | null;
}

/** Room for one part's boundary and headers (busboy caps a part's header block at 16 KiB). */
const PART_OVERHEAD_BYTES = 17 * 1024;

/** What a body may carry beyond its parts' limits before it is cut off (a field over its limit is read to its end to be named). */
const BODY_SLACK_BYTES = 1024 * 1024;

/** The one file field of the seed's upload. */
export const FILE_FIELD = 'file';

export async function readUpload(req: IncomingMessage, account: string, blobs: BlobStore, limits: UploadLimits): Promise<ReceivedUpload> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      // busboy drops what passes a limit and says so (the *Limit events below), which refuses the upload.
      limits: { files: 1, fields: limits.maxFields, fieldSize: limits.maxFieldBytes, parts: limits.maxFields + 1, headerPairs: 32, fieldNameSize: 100 },
    });
  } catch (err) {
    throw badRequest(`Send the upload as multipart/form-data with a boundary (${(err as Error).message}).`, { code: 'invalid_multipart' });
  }

  const fields = new Map<string, string>();
  let file: ReceivedFile | null = null;
  const writes: Array<Promise<void>> = [];
  /** The file part being written: ended by force when the upload fails (a client gone away never ends it). */
  const active: { part: Readable | null } = { part: null };
  let failure: unknown = null;
  let finish = () => undefined as void;
  /**
   * The first refusal ends the read at once: the answer goes out and closes the connection, so a
   * client that keeps sending after breaking a rule (an endless body) is not read any further.
   */
  const fail = (err: unknown) => {
    if (failure === null) {
      if (isHttpError(err)) err.headers.connection = 'close';
      failure = err;
    }
    finish();
  };

  const done = new Promise<void>((resolve) => {
    finish = resolve;
    parser.on('field', (name: string, value: string, info: busboy.FieldInfo) => {
      if (info.nameTruncated) return fail(badRequest('A form field name is longer than 100 characters.', { code: 'field_too_large' }));
      if (info.valueTruncated) return fail(badRequest(`The form field '${name}' is larger than ${formatBytes(limits.maxFieldBytes)}; send a shorter value (setting maxFieldBytes).`, { code: 'field_too_large', field: name }));
      if (name === FILE_FIELD) return fail(badRequest("The form field 'file' must be a file part (with a filename), not a text value.", { code: 'invalid_multipart', field: FILE_FIELD }));
      if (fields.has(name)) return fail(badRequest(`The form field '${name}' is sent twice; send it once.`, { code: 'duplicate_field', field: name }));
      fields.set(name, value);
    });
    parser.on('file', (name: string, stream: Readable, info: busboy.FileInfo) => {
      if (name !== FILE_FIELD || failure) {
        if (name !== FILE_FIELD) fail(badRequest(`Unexpected file field '${name}': send the file in the field 'file'.`, { code: 'invalid_multipart', field: name }));
        // Destroying the parser mid-part errors this stream: unheard, that error would end the process.
        stream.on('error', () => undefined);
        stream.resume();
        return;
      }
      // Errors of the part reach us through the parser and the write below; this keeps a late one from going unheard.
      stream.on('error', () => undefined);
      active.part = stream;
      const write = blobs.write(account, stream, limits.maxFileBytes).then(
        (blob) => {
          if (failure) return blob.discard();
          file = { blob, filename: info.filename ?? '', mimeType: info.mimeType ?? '' };
        },
        (err: unknown) => {
          // Stop reading at once: the rest of a too-large file is not worth receiving.
          fail(err instanceof BlobTooLarge
            ? payloadTooLarge(`Attachment too large (more than ${formatBytes(limits.maxFileBytes)}); the limit is the workspaces setting maxAttachmentBytes.`, { code: 'attachment_too_large', headers: { connection: 'close' } })
            : typeof (err as NodeJS.ErrnoException).code === 'string' ? err // the server's disk, not the client's body
              : unreadable(err as Error));
          resolve();
        },
      );
      writes.push(write);
    });
    parser.on('filesLimit', () => fail(badRequest("Send one file per upload (the field 'file'); send the others in their own requests.", { code: 'too_many_files' })));
    parser.on('fieldsLimit', () => fail(badRequest(`The upload carries more than ${limits.maxFields} form fields (setting maxFields).`, { code: 'too_many_fields' })));
    parser.on('partsLimit', () => fail(badRequest(`The upload carries more than ${limits.maxFields + 1} parts.`, { code: 'too_many_fields' })));
    parser.on('error', (err: Error) => {
      fail(unreadable(err));
      resolve();
    });
    parser.on('close', () => resolve());
    req.on('aborted', () => {
      fail(badRequest('The upload was interrupted before its end.', { code: 'invalid_multipart' }));
      resolve();
    });
  });
  // The whole body is bounded too: busboy drops what passes a field's limit without a word until the
  // part ends, so a field that never ends would otherwise be read for ever.
  // (With room to spare, so a field a little too large still gets the sentence naming it.)
  const maxBody = limits.maxFileBytes + (limits.maxFields + 1) * (limits.maxFieldBytes + PART_OVERHEAD_BYTES) + BODY_SLACK_BYTES;
  let bodyBytes = 0;
  const count = (chunk: Buffer) => {
    bodyBytes += chunk.length;
    if (bodyBytes > maxBody) {
      req.off('data', count);
      fail(payloadTooLarge(`The upload is larger than ${formatBytes(maxBody)} (one file of at most ${formatBytes(limits.maxFileBytes)} and at most ${limits.maxFields} fields of ${formatBytes(limits.maxFieldBytes)}).`, { code: 'attachment_too_large' }));
    }
  };
  req.on('data', count);
  req.pipe(parser);
  await done;
  req.off('data', count);
  if (failure) active.part?.destroy(new Error('the upload failed'));
  await Promise.allSettled(writes);
  const received = file as ReceivedFile | null;
  if (failure) {
    req.unpipe(parser);
    parser.destroy();
    // Whatever the client still sends is read and dropped (the answer also closes the connection).
    req.resume();
    await received?.blob.discard();
    throw failure;
  }
  return { fields, file: received };
}

function unreadable(err: Error): Error {
  return badRequest(`The upload could not be read as multipart/form-data (${err.message.replace(/\.$/, '')}); send a complete body with its boundary.`, { code: 'invalid_multipart' });
}
