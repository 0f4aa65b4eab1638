/**
 * Where a model download lands: a file name checked (never rewritten behind the admin's back when
 * the admin gave it) and confined to the models folder, and the kind of file its extension names.
 */
import path from 'node:path';
import { badRequest } from '@keel/plugin-sdk';

/** What a download may be: a GGUF model, an ONNX model, or a JSON companion of an ONNX folder (config, tokenizer). */
export type DownloadKind = 'gguf' | 'onnx' | 'json';

export interface DownloadTarget {
  /** File name inside the models folder (or inside `folder`; an .onnx file inside `folder/onnx`). */
  filename: string;
  /** Optional model folder (one path segment) inside the models folder, e.g. for an ONNX model and its tokenizer. */
  folder: string | null;
  kind: DownloadKind;
  engine: 'llama' | 'onnx';
  /** Absolute path of the finished file. */
  path: string;
  /** Model name the catalog will list (`local/<model>`). */
  model: string;
}

const MAX_NAME = 128;
// Letters, digits and . _ - only: no separators, no spaces, no control or shell characters.
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The file name part of a URL, made safe (characters outside the safe set become `_`). */
export function filenameFromUrl(url: URL): string {
  let last = url.pathname.split('/').filter(Boolean).pop() ?? '';
  try {
    last = decodeURIComponent(last);
  } catch {
    // Keep the raw segment: it is sanitised below either way.
  }
  const cleaned = path.basename(last.replace(/\\/g, '/')).replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[._-]+/, '').slice(-MAX_NAME);
  if (!cleaned) throw badRequest('The URL names no file; give a filename such as my-model.gguf.', { code: 'invalid_filename', field: 'body.filename' });
  return cleaned;
}

function checkSegment(value: string, field: string, what: string): void {
  if (value.length > MAX_NAME || !SAFE_NAME.test(value) || value.includes('..')) {
    throw badRequest(
      `The ${what} '${value.slice(0, MAX_NAME)}' is not allowed: use at most ${MAX_NAME} letters, digits, '.', '_' or '-', starting with a letter or digit, without '..' or path separators.`,
      { code: 'invalid_filename', field },
    );
  }
}

/** Resolves and checks the target; throws 400 naming the field for a hostile or unsupported name. */
export function resolveTarget(modelsDir: string, input: { url: URL; filename?: string; folder?: string; engine?: string }): DownloadTarget {
  const filename = input.filename ?? filenameFromUrl(input.url);
  checkSegment(filename, 'body.filename', 'file name');
  const folder = input.folder ?? null;
  if (folder !== null) checkSegment(folder, 'body.folder', 'folder name');
  const kind = kindOf(filename, folder);
  const engine = kind === 'gguf' ? 'llama' : 'onnx';
  if (input.engine !== undefined && input.engine !== engine) {
    throw badRequest(`A .${kind} file is run by the ${engine} engine, not '${input.engine}'.`, { code: 'engine_mismatch', field: 'body.engine' });
  }
  const root = path.resolve(modelsDir);
  // transformers.js reads an ONNX model folder's weights from its `onnx/` subfolder.
  const full = path.resolve(root, ...(folder ? [folder] : []), ...(kind === 'onnx' ? ['onnx'] : []), filename);
  // Belt and braces: the checks above already rule out separators and '..'.
  if (!full.startsWith(root + path.sep)) throw badRequest('The file name leaves the models folder.', { code: 'invalid_filename', field: 'body.filename' });
  const model = kind === 'gguf' ? filename.slice(0, -'.gguf'.length) : (folder ?? filename.slice(0, -'.onnx'.length));
  return { filename, folder, kind, engine, path: full, model };
}

function kindOf(filename: string, folder: string | null): DownloadKind {
  const lower = filename.toLowerCase();
  if (lower.endsWith('.gguf') && lower.length > 5) return 'gguf';
  if (lower.endsWith('.onnx') && lower.length > 5) {
    if (!folder) throw badRequest('An ONNX model goes into a model folder: give folder (its config.json and tokenizer files go beside it).', { code: 'folder_required', field: 'body.folder' });
    return 'onnx';
  }
  if (lower.endsWith('.json') && folder) return 'json';
  throw badRequest(
    `The file '${filename}' is not a model file: downloads are GGUF models (.gguf), ONNX models (.onnx, in a folder) or the JSON files of an ONNX model folder (config.json, tokenizer.json).`,
    { code: 'unsupported_file', field: 'body.filename' },
  );
}
