/**
 * Reads a `multipart/form-data` body carrying one audio file (field `file`) and a few text fields,
 * with busboy, bounded: the file at most `maxFileBytes` (kept in memory: the engines take bytes),
 * at most `maxFields` fields of at most `maxFieldBytes` each. Every way a body breaks these rules
 * is a 400 or 413 sentence, and the rest of the body is not read.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { badRequest, formatBytes, isHttpError, payloadTooLarge } from '@keel/plugin-sdk';

export interface AudioFormLimits {
  maxFileBytes: number;
  maxFields: number;
  maxFieldBytes: number;
}

export interface AudioForm {
  fields: Map<string, string>;
  file: { bytes: Buffer; filename: string; contentType: string } | null;
}

export async function readAudioForm(req: IncomingMessage, limits: AudioFormLimits): Promise<AudioForm> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: { files: 1, fields: limits.maxFields, fieldSize: limits.maxFieldBytes, parts: limits.maxFields + 1, headerPairs: 32, fieldNameSize: 100, fileSize: limits.maxFileBytes },
    });
  } catch (err) {
    throw badRequest(`Send the audio as multipart/form-data with a boundary (${(err as Error).message}).`);
  }
  const fields = new Map<string, string>();
  let file: AudioForm['file'] = null;
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
      if (info.nameTruncated) return fail(badRequest('A form field name is longer than 100 characters.'));
      if (info.valueTruncated) return fail(badRequest(`The form field '${name}' is longer than ${formatBytes(limits.maxFieldBytes)}.`));
      if (fields.has(name)) return fail(badRequest(`The form field '${name}' is sent twice; send it once.`));
      fields.set(name, value);
    });
    parser.on('file', (name: string, stream: Readable, info: busboy.FileInfo) => {
      stream.on('error', () => undefined);
      if (name !== 'file' || failure) {
        if (name !== 'file') fail(badRequest(`Unexpected file field '${name}': send the audio in the field 'file'.`));
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(payloadTooLarge(`The audio file is larger than ${formatBytes(limits.maxFileBytes)} (the voice plugin's limits.maxAudioBytes).`)));
      stream.on('end', () => {
        if (!failure) file = { bytes: Buffer.concat(chunks), filename: info.filename ?? '', contentType: info.mimeType ?? '' };
      });
    });
    parser.on('filesLimit', () => fail(badRequest("Send one audio file (the field 'file').")));
    parser.on('fieldsLimit', () => fail(badRequest(`The form carries more than ${limits.maxFields} fields.`)));
    parser.on('partsLimit', () => fail(badRequest(`The form carries more than ${limits.maxFields + 1} parts.`)));
    parser.on('error', (err: Error) => fail(badRequest(`The multipart body could not be read: ${err.message}.`)));
    parser.on('close', () => resolve());
    req.on('aborted', () => fail(badRequest('The upload was interrupted before its end.')));
  });
  req.pipe(parser);
  await done;
  if (failure) {
    req.unpipe(parser);
    parser.destroy();
    req.resume();
    throw failure;
  }
  return { fields, file };
}
