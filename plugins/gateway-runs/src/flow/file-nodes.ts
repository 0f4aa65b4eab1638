/**
 * The `write_file` and `write_pdf` nodes (runtime-nodes §9.2–9.3): a file written in the run's
 * workspace folder through the workspace policy, the file tools' size limit and the folder's quota
 * (`writeWorkspaceFile`, the `write_file` tool's own path), then announced to the `runs.hooks`
 * listeners (artifacts). As the origin's plain exec nodes they write no ledger record; a failure
 * ends the run completed with `{success: false, error, node}`.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { inside, ToolRefusal, type WorkspaceService } from '@keel/plugin-workspaces';
import type { FolderUsage } from '../workspace/folder-quota.js';
import { fsSentence, writeWorkspaceFile, type ToolContext } from '../workspace/file-tools.js';
import type { ToolLimits } from '../workspace/tool-limits.js';
import { runWorkspaceOf } from '../workspace/run-workspace.js';
import { effectNode, type EffectContext, type EffectNodeType, type NodeInputs } from './node-types.js';

/** `write_pdf` renders in this worker (the `pdf-render` pool, see pdf-worker.ts). */
export const PDF_WORKER_FILE = new URL('./pdf-worker.js', import.meta.url);

export interface FileNodeDeps {
  workspaces: WorkspaceService;
  /** The file tools' budgets (`workspace.*`): the nodes write under the same size limit and quota. */
  limits: ToolLimits;
  usage: FolderUsage;
  /** `write_pdf`'s bytes for the text and title, rendered off the main thread (the `pdf-render` pool). */
  renderPdf(content: string, title: string | null, signal: AbortSignal): Promise<Buffer>;
}

interface WritePayload extends Record<string, unknown> {
  file_path: string;
  content: unknown;
}

interface PdfPayload extends WritePayload {
  title: string | null;
}

/** Python's `str()` of a scalar that is neither text nor null. */
function pythonScalar(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  return String(value);
}

const filePathOf = (inputs: NodeInputs) => (inputs.file_path === null || inputs.file_path === undefined ? '' : String(inputs.file_path));

/** `write_file`'s bytes for `content` (§9.2): `.json` files hold indented JSON with a newline, others the text. */
export function writeFileText(filePath: string, content: unknown): string {
  if (filePath.toLowerCase().endsWith('.json')) {
    let value = content;
    if (typeof content === 'string') {
      try {
        value = JSON.parse(content);
      } catch (err) {
        throw new Error(`write_file JSON content must be valid JSON: ${(err as Error).message}`, { cause: err });
      }
    }
    return `${JSON.stringify(value ?? null, null, 2)}\n`;
  }
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (typeof content === 'object') return JSON.stringify(content, null, 2);
  return pythonScalar(content);
}

/** Writes `bytes` at `requested` in the run's workspace; answers the path as the workspace names it. */
async function writeInWorkspace(deps: FileNodeDeps, node: string, requested: string, bytes: Buffer, context: EffectContext, contentType: string): Promise<string> {
  // Makes the run's folder when missing and records its workspace (a run from before the workspaces plugin gets one now, clamped).
  await context.workspaceRoot();
  const ws = deps.workspaces.recorded(context.rootRunId)
    ?? (await runWorkspaceOf(deps.workspaces, { run_id: context.rootRunId, account: context.account, session_id: null, input_data: {} }));
  const tools: ToolContext = { workspaces: deps.workspaces, ws, account: context.account, usage: deps.usage, limits: deps.limits, signal: context.signal };
  try {
    const { real, where, root } = await writeWorkspaceFile(tools, node, requested, bytes);
    context.fileProduced(real, contentType);
    return inside(real, root) ? path.relative(root, real).split(path.sep).join('/') : where;
  } catch (err) {
    if (err instanceof ToolRefusal) throw new Error(`${node} path rejected by workspace policy: ${err.message}`, { cause: err });
    if ((err as NodeJS.ErrnoException).code) throw new Error(`${node} failed: ${fsSentence(err as NodeJS.ErrnoException, requested)}`, { cause: err });
    throw err;
  }
}

export function fileNodeTypes(deps: FileNodeDeps): Record<string, EffectNodeType> {
  const writeFile = effectNode<WritePayload, { bytes: number; file_path: string }>({
    payload: (inputs) => ({ file_path: filePathOf(inputs), content: inputs.content ?? null }),
    perform: async ({ file_path, content }, context) => {
      if (!file_path.trim()) throw new Error("write_file requires a non-empty 'file_path' input.");
      const bytes = Buffer.from(writeFileText(file_path, content), 'utf8');
      const written = await writeInWorkspace(deps, 'write_file', file_path, bytes, context, file_path.toLowerCase().endsWith('.json') ? 'application/json' : 'text/plain');
      return { bytes: bytes.length, file_path: written };
    },
  });
  const writePdf = effectNode<PdfPayload, { bytes: number; sha256: string; content_type: string; renderer: string; file_path: string }>({
    payload: (inputs) => ({ file_path: filePathOf(inputs), content: inputs.content ?? null, title: inputs.title === null || inputs.title === undefined || inputs.title === '' ? null : String(inputs.title) }),
    perform: async ({ file_path, content, title }, context) => {
      if (!file_path.trim()) throw new Error("write_pdf requires a non-empty 'file_path' input.");
      if (!file_path.toLowerCase().endsWith('.pdf')) throw new Error('write_pdf requires a .pdf file path.');
      const text = content === null || content === undefined ? '' : typeof content === 'string' ? content : typeof content === 'object' ? JSON.stringify(content, null, 2) : pythonScalar(content);
      // Rendering is work on the event loop: text over the write limit is refused before it starts.
      if (Buffer.byteLength(text, 'utf8') + Buffer.byteLength(title ?? '', 'utf8') > deps.limits.maxWriteBytes) {
        throw new Error(`write_pdf content is over the ${deps.limits.maxWriteBytes} bytes a file node writes (gateway-runs setting workspace.maxWriteBytes).`);
      }
      const pdf = await deps.renderPdf(text, title, context.signal);
      const written = await writeInWorkspace(deps, 'write_pdf', file_path, pdf, context, 'application/pdf');
      // `renderer` keeps the origin's value so flows that read it behave the same; Keel renders with pdfkit.
      return { bytes: pdf.length, sha256: createHash('sha256').update(pdf).digest('hex'), content_type: 'application/pdf', renderer: 'reportlab', file_path: written };
    },
  });
  return { write_file: { ...writeFile, recorded: false }, write_pdf: { ...writePdf, recorded: false } };
}
