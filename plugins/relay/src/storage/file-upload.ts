/**
 * Reads `POST /v1/files` (multipart/form-data) with busboy straight into the file store: one file
 * part `file` (streamed to a temporary file, never buffered), and at most a few short text fields
 * (`purpose`, as the official client sends it). The first refusal ends the read and closes the
 * connection, so a client that keeps sending past a limit is not read any further.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { badRequest, isHttpError, payloadTooLarge } from '@keel/plugin-sdk';
import type { ReceivedBytes, RelayFiles } from './file-store.js';

export const FILE_FIELD = 'file';
const MAX_FIELDS = 8;
const MAX_FIELD_BYTES = 1024;
/** Room for the parts' boundaries and headers beyond the file itself. */
const BODY_SLACK_BYTES = 256 * 1024;

export interface ReceivedUpload {
  fields: Map<string, string>;
  file: { bytes: ReceivedBytes; filename: string; mimeType: string } | null;
}

export async function readFileUpload(req: IncomingMessage, files: RelayFiles, maxFileBytes: number): Promise<ReceivedUpload> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: MAX_FIELDS + 1, headerPairs: 32, fieldNameSize: 100 } });
  } catch (err) {
    throw badRequest(`Send the file as multipart/form-data with a boundary and the file in the field 'file' (${(err as Error).message}).`, { code: 'invalid_multipart' });
  }
  const fields = new Map<string, string>();
  let file: ReceivedUpload['file'] = null;
  const writes: Array<Promise<void>> = [];
  let active: Readable | null = null;
  let failure: unknown = null;
  let finish = () => undefined as void;
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
      if (info.nameTruncated || info.valueTruncated) return fail(badRequest(`The form field '${name.slice(0, 100)}' is longer than ${MAX_FIELD_BYTES} bytes.`, { code: 'field_too_large' }));
      if (name === FILE_FIELD) return fail(badRequest("The form field 'file' must be a file part (with a filename), not a text value.", { code: 'invalid_multipart', field: FILE_FIELD }));
      fields.set(name, value);
    });
    parser.on('file', (name: string, stream: Readable, info: busboy.FileInfo) => {
      // An error of a part the parser drops would otherwise go unheard and end the process.
      stream.on('error', () => undefined);
      if (name !== FILE_FIELD || failure) {
        if (name !== FILE_FIELD) fail(badRequest(`Unexpected file field '${name.slice(0, 100)}': send the file in the field 'file'.`, { code: 'invalid_multipart', field: name }));
        stream.resume();
        return;
      }
      active = stream;
      writes.push(files.receive(stream).then(
        (bytes) => {
          if (failure) return bytes.discard();
          file = { bytes, filename: info.filename ?? '', mimeType: info.mimeType ?? '' };
        },
        (err: unknown) => {
          fail(isHttpError(err) || typeof (err as NodeJS.ErrnoException).code === 'string' ? err : unreadable(err as Error));
          resolve();
        },
      ));
    });
    parser.on('filesLimit', () => fail(badRequest("Send one file per upload (the field 'file').", { code: 'too_many_files' })));
    parser.on('fieldsLimit', () => fail(badRequest(`The upload carries more than ${MAX_FIELDS} form fields.`, { code: 'too_many_fields' })));
    parser.on('partsLimit', () => fail(badRequest(`The upload carries more than ${MAX_FIELDS + 1} parts.`, { code: 'too_many_fields' })));
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
  // The whole body is bounded too: busboy drops what passes a field's limit silently until the part ends.
  const maxBody = maxFileBytes + BODY_SLACK_BYTES;
  let bodyBytes = 0;
  const count = (chunk: Buffer) => {
    bodyBytes += chunk.length;
    if (bodyBytes > maxBody) {
      req.off('data', count);
      fail(payloadTooLarge(`The upload is larger than its file limit allows (setting uploads.maxUploadBytes, ${maxFileBytes} bytes).`, { code: 'file_too_large' }));
    }
  };
  req.on('data', count);
  req.pipe(parser);
  await done;
  req.off('data', count);
  if (failure) (active as Readable | null)?.destroy(new Error('the upload failed'));
  await Promise.allSettled(writes);
  const received = file as ReceivedUpload['file'];
  if (failure) {
    req.unpipe(parser);
    parser.destroy();
    req.resume();
    await received?.bytes.discard();
    throw failure;
  }
  return { fields, file: received };
}

function unreadable(err: Error): Error {
  return badRequest(`The upload could not be read as multipart/form-data (${err.message.replace(/\.$/, '')}); send a complete body with its boundary.`, { code: 'invalid_multipart' });
}
