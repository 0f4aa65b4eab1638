/**
 * How an artifact is classified when its producer said nothing (reference gateway-surfaces §2.6):
 * `render_kind` from the content type, `modality` from the content type, and the legacy
 * `semantic_kind` inference from tags, file name and modality. A value the record already carries
 * always wins; these rules only fill what is missing, never invent producer data.
 */

const CODE_TYPES = new Set([
  'application/javascript', 'text/javascript', 'application/x-javascript', 'application/ecmascript', 'text/ecmascript',
  'application/typescript', 'text/typescript', 'application/x-typescript', 'text/jsx', 'text/tsx',
  'text/x-python', 'application/x-python', 'text/x-python-script', 'application/x-python-code',
  'application/x-sh', 'text/x-sh', 'text/x-shellscript', 'application/x-shellscript',
  'text/x-go', 'text/x-rust', 'text/rust', 'text/x-java', 'text/x-java-source',
  'text/x-c', 'text/x-csrc', 'text/x-chdr', 'text/x-c++', 'text/x-c++src', 'text/x-c++hdr', 'text/x-csharp',
  'application/x-httpd-php', 'text/x-php', 'application/x-php', 'text/x-ruby', 'application/x-ruby',
]);

/** image / audio / video / code / document / json / html / markdown / text / binary. */
export function renderKindOf(contentType: string): string {
  const type = contentType.toLowerCase();
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  if (CODE_TYPES.has(type)) return 'code';
  if (type.includes('pdf')) return 'document';
  if (type.includes('json')) return 'json';
  if (type.includes('html')) return 'html';
  if (type.includes('markdown')) return 'markdown';
  if (type.startsWith('text/') || /(xml|yaml|toml|csv)/.test(type)) return 'text';
  return 'binary';
}

/** image / audio / video / text / file (reference §2.2). */
export function modalityFromContentType(contentType: string): string {
  const type = contentType.toLowerCase();
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('text/') || /(json|xml|yaml|markdown)/.test(type)) return 'text';
  return 'file';
}

const RENDER_AS_SEMANTIC = new Set(['image', 'video', 'audio', 'markdown', 'html', 'json', 'document', 'code', 'text']);
const WORD_RULES: Array<[RegExp, string]> = [
  [/(^|[^a-z])(music|song|text_to_music|t2m)([^a-z]|$)/, 'music'],
  [/(^|[^a-z])(tts|voice|speech|speaker|clone)([^a-z]|$)/, 'voice'],
  [/(^|[^a-z])(stt|transcript|transcription)([^a-z]|$)/, 'transcript'],
  [/(^|[^a-z])(sound|recording)([^a-z]|$)/, 'sound'],
  [/(^|[^a-z])(source_code|code_generation|script|executable|program)([^a-z]|$)/, 'code'],
];

/**
 * The legacy semantic kind: words in the tags `task`, `provider_task`, `kind`, `source` and in the
 * file name or path (music, voice, transcript, sound, code), then a voice/music/sound modality, then
 * the render kind, then audio by content type; else `artifact`.
 */
export function inferSemanticKind(input: { tags: Record<string, string>; modality: string; renderKind: string; contentType: string; filename: string | null; path: string | null }): string {
  const { tags } = input;
  const words = [tags.task, tags.provider_task, tags.kind, tags.source, tags.filename ?? input.filename, tags.path ?? input.path, tags.name]
    .filter((w): w is string => typeof w === 'string' && w !== '')
    .map((w) => w.toLowerCase());
  for (const [rule, kind] of WORD_RULES) if (words.some((w) => rule.test(w))) return kind;
  const modality = input.modality.toLowerCase();
  if (modality === 'voice' || modality === 'music' || modality === 'sound') return modality;
  if (RENDER_AS_SEMANTIC.has(input.renderKind)) return input.renderKind;
  if (input.contentType.toLowerCase().startsWith('audio/')) return 'audio';
  return 'artifact';
}
