/** A multipart/form-data body for `/audio/transcriptions` and clone uploads (built whole: uploads are bounded). */
import { randomBytes } from 'node:crypto';

export interface MultipartFile {
  name: string;
  filename: string;
  contentType: string;
  bytes: Buffer;
}

export function multipartBody(fields: Record<string, string | undefined>, files: MultipartFile[]): { body: Buffer; contentType: string } {
  const boundary = `----keel-voice-${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`, 'utf8'));
  }
  for (const file of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quote(file.name)}"; filename="${quote(file.filename)}"\r\nContent-Type: ${safeType(file.contentType)}\r\n\r\n`,
        'utf8',
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A caller's content type is used only when it is a plain `type/subtype`; never a header break. */
function safeType(value: string): string {
  return /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/.test(value) ? value : 'application/octet-stream';
}

/** Quotes and line breaks cannot break out of a header parameter. */
function quote(value: string): string {
  return value.replace(/["\r\n\\]/g, '_');
}
