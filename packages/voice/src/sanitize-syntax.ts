/**
 * Markdown stripping before speech (reference B.2 `sanitize_syntax`): an LLM's answer often carries
 * headers, emphasis, code fences and links that an engine would otherwise read aloud as symbols.
 */
export function sanitizeSyntax(text: string): string {
  return text
    .replace(/```[^\n]*\n?/g, '') // code fences (the code itself is kept)
    .replace(/`([^`]*)`/g, '$1') // inline code
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1') // images: alt text
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1') // links: their text
    .replace(/^[ \t]{0,3}#{1,6}[ \t]+/gm, '') // headers
    .replace(/^[ \t]*>[ \t]?/gm, '') // block quotes
    .replace(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+/gm, '') // list markers
    .replace(/^[ \t]*(?:[-*_][ \t]*){3,}$/gm, '') // horizontal rules
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2') // strong
    .replace(/(\*|_)(?=\S)([^*_\n]*?\S)\1(?!\w)/g, '$2') // emphasis
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1'); // strike-through
}
