/**
 * File families of `/files/list` (reference gateway-surfaces §2.7): archive, json and code by
 * extension sets (or a known file name such as `Dockerfile`), then image / video / audio /
 * document / text from the media type the extension maps to, else `other`. Only names are looked
 * at: a file is never opened to guess its family.
 */
import { lookup } from 'mime-types';

export const FAMILIES = ['image', 'video', 'audio', 'document', 'text', 'code', 'json', 'archive', 'other'] as const;
export type Family = (typeof FAMILIES)[number];

const ARCHIVE = new Set(['7z', 'bz2', 'gz', 'rar', 'tar', 'tgz', 'xz', 'zip']);
const JSON_EXT = new Set(['json', 'jsonl', 'ndjson']);
const CODE = new Set([
  'md', 'markdown', 'html', 'htm', 'xml', 'yaml', 'yml', 'toml', 'sql', 'css', 'scss', 'sass', 'less',
  'js', 'mjs', 'cjs', 'jsx', 'ts', 'mts', 'cts', 'tsx', 'py', 'pyi', 'ipynb', 'rb', 'go', 'rs', 'java', 'kt', 'kts', 'scala', 'swift',
  'c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'hh', 'cs', 'fs', 'php', 'pl', 'pm', 'lua', 'r', 'jl', 'dart', 'ex', 'exs', 'erl', 'hs', 'clj', 'elm',
  'sh', 'bash', 'zsh', 'fish', 'ps1', 'bat', 'cmd', 'vue', 'svelte', 'graphql', 'gql', 'proto', 'ini', 'cfg', 'conf', 'env', 'gradle', 'cmake', 'mk', 'tf', 'nix', 'zig', 'vim',
]);
const CODE_NAMES = new Set(['dockerfile', 'makefile', 'gemfile', 'rakefile', 'procfile', 'vagrantfile', 'jenkinsfile', 'cmakelists.txt', '.gitignore', '.gitattributes', '.dockerignore', '.editorconfig', '.bashrc', '.zshrc', '.profile', '.npmrc', '.env']);
const DOCUMENT = new Set(['pdf', 'doc', 'docx', 'odt', 'rtf', 'ppt', 'pptx', 'odp', 'xls', 'xlsx', 'ods', 'epub', 'pages', 'numbers', 'key']);
const TEXT = new Set(['txt', 'text', 'log', 'csv', 'tsv', 'rst', 'adoc', 'tex', 'srt', 'vtt']);

/** The lower-cased extension of a name (`''` for none or a bare dotfile). */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

export function familyOf(name: string): Family {
  const lower = name.toLowerCase();
  const ext = extensionOf(lower);
  if (ARCHIVE.has(ext)) return 'archive';
  if (JSON_EXT.has(ext)) return 'json';
  if (CODE.has(ext) || CODE_NAMES.has(lower)) return 'code';
  if (DOCUMENT.has(ext)) return 'document';
  if (TEXT.has(ext)) return 'text';
  const type = (ext && lookup(ext)) || '';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('text/')) return 'text';
  return 'other';
}

/** `extensions`: a comma or newline list; lower-cased, leading dots removed, empty items dropped. */
export function parseExtensions(value: string): Set<string> {
  return new Set(value.split(/[,\n\r]/).map((e) => e.trim().toLowerCase().replace(/^\.+/, '')).filter((e) => e !== ''));
}
