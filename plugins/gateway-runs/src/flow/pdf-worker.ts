/**
 * Worker thread of the `pdf-render` pool: `write_pdf` lays out its text here, never on the main
 * thread. Rendering is linear in the text but still seconds for a megabyte of Markdown, and a flow
 * can loop the node: on the event loop every request of every account waited that long.
 */
import { renderPdf } from './pdf-render.js';

export interface PdfTask {
  content: string;
  title: string | null;
}

export default function render(task: PdfTask): Promise<Uint8Array> {
  return renderPdf(task.content, task.title);
}
