/**
 * `write_pdf`'s renderer (runtime-nodes §9.3): Markdown-ish text on US Letter pages with 0.72-inch
 * margins — ATX headings, `-`/`*` bullets and `1.`/`1)` items (as bullet lists), fenced code blocks
 * in Courier 8 pt, inline `code` and **bold**, blank lines between paragraphs — through pdfkit with
 * its built-in fonts (nothing loaded from disk or the network).
 */
import PDFDocument from 'pdfkit';

const MARGIN = 0.72 * 72;
const BODY_SIZE = 10;
const HEADING_SIZES = [20, 17, 14, 12, 11, 10];

type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'item'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'paragraph'; text: string };

/** The content's blocks: fenced code kept verbatim, paragraph lines joined with spaces. */
export function markdownBlocks(content: string): Block[] {
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  let code: string[] | null = null;
  const flush = () => {
    if (paragraph.length) blocks.push({ kind: 'paragraph', text: paragraph.join(' ') });
    paragraph = [];
  };
  for (const line of content.replace(/\r\n?/g, '\n').split('\n')) {
    if (code) {
      if (/^\s*```/.test(line)) {
        blocks.push({ kind: 'code', text: code.join('\n') });
        code = null;
      } else code.push(line);
      continue;
    }
    const trimmed = line.trim();
    if (trimmed.startsWith('```')) {
      flush();
      code = [];
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(trimmed);
    const item = /^(?:[-*]|\d+[.)])\s+(.*)$/.exec(trimmed);
    if (!trimmed) flush();
    else if (heading) {
      flush();
      blocks.push({ kind: 'heading', level: heading[1]!.length, text: heading[2]!.replace(/\s+#+\s*$/, '') });
    } else if (item) {
      flush();
      blocks.push({ kind: 'item', text: item[1]! });
    } else paragraph.push(trimmed);
  }
  if (code) blocks.push({ kind: 'code', text: code.join('\n') });
  flush();
  return blocks;
}

/**
 * pdfkit splits a word wider than the line by measuring what is left of it after every line:
 * quadratic in the word's length (a 1 MiB word blocked the event loop for many minutes). A line
 * break every `LONG_WORD` characters of an unbroken run keeps that measuring linear.
 */
const LONG_WORD = 1000;
const breakLongWords = (text: string) => text.replace(new RegExp(`\\S{${LONG_WORD}}(?=\\S)`, 'g'), '$&\n');

/** Inline runs of a line: `code` in Courier, **bold** in Helvetica-Bold, the rest in `base`. */
function inlineRuns(text: string, base: string): Array<{ text: string; font: string }> {
  const runs: Array<{ text: string; font: string }> = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*/g;
  let at = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (m.index > at) runs.push({ text: text.slice(at, m.index), font: base });
    runs.push(m[1] !== undefined ? { text: m[1], font: 'Courier' } : { text: m[2]!, font: 'Helvetica-Bold' });
    at = m.index + m[0].length;
  }
  if (at < text.length) runs.push({ text: text.slice(at), font: base });
  return runs.length ? runs : [{ text: '', font: base }];
}

function writeRuns(doc: PDFKit.PDFDocument, text: string, base: string, size: number, options: PDFKit.Mixins.TextOptions = {}): void {
  const runs = inlineRuns(breakLongWords(text), base);
  runs.forEach((run, i) => {
    doc.font(run.font).fontSize(size).text(run.text, { ...options, continued: i < runs.length - 1 });
  });
}

/** The PDF's bytes. */
export function renderPdf(content: string, title: string | null): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'LETTER', margins: { top: MARGIN, bottom: MARGIN, left: MARGIN, right: MARGIN }, info: { Title: title || 'AbstractRuntime PDF' } });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  if (title) {
    doc.font('Helvetica-Bold').fontSize(HEADING_SIZES[0]!).text(breakLongWords(title));
    doc.moveDown(0.6);
  }
  for (const block of markdownBlocks(content)) {
    switch (block.kind) {
      case 'heading':
        doc.moveDown(0.3);
        writeRuns(doc, block.text, 'Helvetica-Bold', HEADING_SIZES[block.level - 1]!);
        doc.moveDown(0.3);
        break;
      case 'item':
        writeRuns(doc, `\u2022 ${block.text}`, 'Helvetica', BODY_SIZE, { indent: 12 });
        break;
      case 'code':
        doc.moveDown(0.3);
        doc.font('Courier').fontSize(8).text(breakLongWords(block.text) || ' ', { lineBreak: true });
        doc.moveDown(0.5);
        break;
      case 'paragraph':
        writeRuns(doc, block.text, 'Helvetica', BODY_SIZE);
        doc.moveDown(0.6);
        break;
    }
  }
  doc.end();
  return done;
}
