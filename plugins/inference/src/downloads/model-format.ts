/**
 * Checks that downloaded bytes are the model format their name claims, before the file appears:
 * GGUF files start with the magic `GGUF` and a known version; an ONNX model is a protobuf
 * `ModelProto` whose first field is `ir_version` (tag 0x08) with a small value; a JSON companion parses.
 */
import { open, readFile } from 'node:fs/promises';
import type { DownloadKind } from './download-target.js';

/** The head length a format check needs; a download stops early when its head already fails. */
export const HEAD_BYTES = 8;

/** Null when the head fits the kind, else a sentence saying what the bytes are not. */
export function checkHead(kind: DownloadKind, head: Buffer): string | null {
  if (kind === 'gguf') {
    if (head.length < 8 || head.toString('latin1', 0, 4) !== 'GGUF') return 'the file does not start with the GGUF magic bytes (is it an HTML page or another format?)';
    const version = head.readUInt32LE(4);
    if (version < 1 || version > 3) return `the GGUF version ${version} is not one llama.cpp reads (1 to 3)`;
    return null;
  }
  if (kind === 'onnx') {
    // ModelProto field 1 (ir_version, varint): tag byte 0x08, then a version below 128 (one byte).
    if (head.length < 2 || head[0] !== 0x08 || head[1] === 0 || head[1]! >= 0x80) return 'the file is not an ONNX model (a protobuf ModelProto starting with its ir_version)';
    return null;
  }
  const first = head.toString('utf8').trimStart()[0];
  return first === '{' ? null : 'the file is not a JSON object';
}

/** The whole-file check run once the download is complete. */
export async function checkFile(kind: DownloadKind, file: string): Promise<string | null> {
  if (kind === 'json') {
    try {
      const value: unknown = JSON.parse(await readFile(file, 'utf8'));
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? null : 'the file is not a JSON object';
    } catch {
      return 'the file is not valid JSON';
    }
  }
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, HEAD_BYTES, 0);
    return checkHead(kind, head.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}
