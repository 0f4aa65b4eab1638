/**
 * The file tools an agent (or a `tool_calls` node) may run, confined by the workspace policy:
 * `list_files`, `read_file`, `write_file`, `edit_file` (names from the reference's default tool
 * list). Relative paths resolve against the run's folder. A tool that cannot do what it was asked
 * (a refused path, a missing file, a file over the size limit, an edit that does not match once)
 * answers `success: false` with the reason in `error`; the effect itself still completes, and the
 * model sees the reason. Writes are held to the run folder's quota (`folder-quota.ts`). Everything is asynchronous (file handles), so a slow disk never blocks the
 * server; files are judged on the opened descriptor (see `checked-open.ts`).
 */
import { formatBytes } from '@keel/plugin-sdk';
import { mkdir, opendir } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { MARKER_FILE, openFile, openFileForWrite, openFolder, ToolRefusal, type RunWorkspace, type WorkspaceService } from '@keel/plugin-workspaces';
import { AgentToolRefusal, type AgentToolRegistry, type AgentToolRun } from '../extensions/agent-tools.js';
import type { FolderUsage } from './folder-quota.js';
import type { ToolLimits } from './tool-limits.js';

export const FILE_TOOLS = ['list_files', 'read_file', 'write_file', 'edit_file'] as const;
export type FileTool = (typeof FILE_TOOLS)[number];

/** How much of a file `read_file` returns at most (characters). */
export const MAX_READ_CHARS = 64 * 1024;
/** How many entries `list_files` returns at most. */
export const MAX_LIST_ENTRIES = 500;
/** How many further entries `list_files` counts before it stops counting. */
const MAX_LIST_COUNT = 100_000;

export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
  call_id: string;
}

export interface ToolResult {
  call_id: string;
  name: string;
  success: boolean;
  output: string | null;
  error: string | null;
}

/** What the model is told about each tool (also the `tools` specs recorded on its llm_call). */
export const TOOL_SPECS: Array<{ name: FileTool; description: string; parameters: Record<string, unknown> }> = [
  { name: 'list_files', description: 'List the files and folders in a folder (default: the workspace folder).', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'read_file', description: `Read a text file, optionally only lines start_line..end_line (1-based, inclusive); at most ${MAX_READ_CHARS} characters are returned.`, parameters: { type: 'object', properties: { path: { type: 'string' }, start_line: { type: 'integer' }, end_line: { type: 'integer' } }, required: ['path'] } },
  { name: 'write_file', description: 'Create or replace a text file with the given content (folders are created as needed).', parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] } },
  { name: 'edit_file', description: 'Replace the one exact occurrence of `old` in a file with `new`.', parameters: { type: 'object', properties: { path: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } }, required: ['path', 'old', 'new'] } },
];

export function isFileTool(name: string): name is FileTool {
  return (FILE_TOOLS as readonly string[]).includes(name);
}

/** Where and under which limits one run's tools work. */
export interface ToolContext {
  workspaces: WorkspaceService;
  /** The root run's recorded workspace. */
  ws: RunWorkspace;
  /** The run's owner. */
  account: string;
  /** The run folders' quota records. */
  usage: FolderUsage;
  limits: ToolLimits;
  /** Aborted when the effect's time budget is over or the run is cancelled: a read in progress stops. */
  signal: AbortSignal;
  /** Told the real path of each file write_file or edit_file wrote (after the write, judged on its descriptor). */
  wrote?: (realPath: string) => void;
  /** The tools other plugins registered (`agentToolsToken`) and the run they are called for: a call naming one falls through to it. */
  agentTools?: Pick<AgentToolRegistry, 'get'>;
  run?: AgentToolRun;
}

/** Runs one call; a failure the model should read comes back as `success: false`. An allow-list (even empty: none allowed) limits the tools. */
export async function executeToolCall(ctx: ToolContext, call: ToolCall, allowed: string[] | null): Promise<ToolResult> {
  const base = { call_id: call.call_id, name: call.name };
  try {
    const registered = isFileTool(call.name) ? undefined : ctx.agentTools?.get(call.name);
    if ((!isFileTool(call.name) && !(registered && ctx.run)) || (allowed && !allowed.includes(call.name))) throw new ToolRefusal(`the tool '${call.name}' is not available on this gateway`);
    if (registered && ctx.run) return { ...base, success: true, output: await registered.run({ arguments: call.arguments ?? {}, run: ctx.run, signal: ctx.signal }), error: null };
    return { ...base, success: true, output: await runTool(ctx, call.name as FileTool, call.arguments ?? {}), error: null };
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    if (err instanceof ToolRefusal || err instanceof AgentToolRefusal) return { ...base, success: false, output: null, error: err.message };
    // A registered tool's own failure: never its message (it may carry a server path).
    if (!isFileTool(call.name)) return { ...base, success: false, output: null, error: `the tool '${call.name}' failed on the server` };
    return { ...base, success: false, output: null, error: fsSentence(err as NodeJS.ErrnoException, String(call.arguments?.path ?? call.arguments?.file_path ?? '.')) };
  }
}

/** A path a file tool (or a flow's file node) was given, judged by the workspace policy for `need`. */
async function targetOf(ctx: ToolContext, root: string, name: string, given: unknown, need: 'ro' | 'rw', fallback?: string) {
  const marker = path.join(root, MARKER_FILE);
  const requested = given === undefined || given === null || given === '' ? fallback : given;
  if (typeof requested !== 'string' || requested === '') throw new ToolRefusal(`${name} needs a 'path' argument.`);
  const access = await ctx.workspaces.check(ctx.ws, ctx.account, requested, need);
  if (!access.ok) throw new ToolRefusal(access.sentence);
  const where = shown(root, requested, access.path);
  const markerRefusal = `${MARKER_FILE} marks the run's workspace folder; it cannot be changed.`;
  if (need === 'rw' && access.path === marker) throw new ToolRefusal(markerRefusal);
  // What the descriptor really is gets the same judgement as the path.
  const judge = async (real: string) => {
    if (need === 'rw' && real === marker) return markerRefusal;
    const again = await ctx.workspaces.judge(ctx.ws, ctx.account, root, real, need, where);
    return again.ok ? null : again.sentence;
  };
  return { real: access.path, where, judge };
}

/**
 * Creates or replaces the file at `requested` with `bytes` under the workspace policy, the size
 * limit and the folder's quota (the `write_file` tool, and the flows' `write_file`/`write_pdf`
 * nodes). A refusal is a `ToolRefusal` with the policy's sentence; `ctx.wrote` is told the real path.
 */
export async function writeWorkspaceFile(ctx: ToolContext, name: string, requested: unknown, bytes: Buffer): Promise<{ real: string; where: string; root: string }> {
  refuseLargeWrite(bytes.length, ctx);
  const root = await ctx.workspaces.rootOf(ctx.ws);
  const marker = path.join(root, MARKER_FILE);
  const { real, where, judge } = await targetOf(ctx, root, name, requested, 'rw');
  return ctx.usage.serialised(root, async () => {
    const settle = await ctx.usage.chargeWrite(root, real, where, bytes.length, ctx.limits, marker, ctx.signal);
    let written = false;
    try {
      await mkdir(path.dirname(real), { recursive: true });
      const handle = await openFileForWrite(real, where, judge);
      try {
        await replaceContent(handle, bytes);
        written = true;
      } finally {
        await handle.close();
      }
    } finally {
      settle(written);
    }
    ctx.wrote?.(real);
    return { real, where, root };
  });
}

async function runTool(ctx: ToolContext, name: FileTool, args: Record<string, unknown>): Promise<string> {
  const root = await ctx.workspaces.rootOf(ctx.ws);
  const marker = path.join(root, MARKER_FILE);
  const target = (need: 'ro' | 'rw', fallback?: string) => targetOf(ctx, root, name, args.path ?? args.file_path, need, fallback);
  switch (name) {
    case 'list_files': {
      const { real, where, judge } = await target('ro', '.');
      const folder = await openFolder(real, where, judge);
      const entries: string[] = [];
      let more = 0;
      try {
        const dir = await opendir(folder.readPath, { bufferSize: 64 });
        for await (const e of dir) {
          if (ctx.signal.aborted) break;
          if (e.name === MARKER_FILE && real === root) continue;
          if (entries.length < MAX_LIST_ENTRIES) entries.push(e.isDirectory() ? `${e.name}/` : e.name);
          else if (++more >= MAX_LIST_COUNT) break;
        }
      } finally {
        await folder.handle.close();
      }
      if (!entries.length) return `${where} is empty.`;
      entries.sort((a, b) => a.localeCompare(b));
      const tail = more ? [`… ${more >= MAX_LIST_COUNT ? `more than ${MAX_LIST_COUNT}` : more} more not shown`] : [];
      return [`${where}:`, ...entries, ...tail].join('\n');
    }
    case 'read_file': {
      const { real, where, judge } = await target('ro');
      const handle = await openFile(real, where, judge, false);
      let text: string;
      try {
        text = await readCapped(handle, where, ctx);
      } finally {
        await handle.close();
      }
      const start = args.start_line === undefined || args.start_line === null ? null : Number(args.start_line);
      const end = args.end_line === undefined || args.end_line === null ? null : Number(args.end_line);
      if ((start !== null && !(Number.isInteger(start) && start >= 1)) || (end !== null && !(Number.isInteger(end) && end >= 1))) throw new ToolRefusal('start_line and end_line are whole numbers from 1.');
      if (start !== null || end !== null) text = text.split('\n').slice((start ?? 1) - 1, end ?? undefined).join('\n');
      if (text.length > MAX_READ_CHARS) return `${text.slice(0, MAX_READ_CHARS)}\n[truncated: ${text.length - MAX_READ_CHARS} more characters; read a line range]`;
      return text;
    }
    case 'write_file': {
      if (typeof args.content !== 'string') throw new ToolRefusal("write_file needs a 'content' string.");
      const bytes = Buffer.from(args.content, 'utf8');
      const { where } = await writeWorkspaceFile(ctx, name, args.path ?? args.file_path, bytes);
      return `Wrote ${bytes.length} bytes to ${where}.`;
    }
    case 'edit_file': {
      const old = args.old ?? args.old_string;
      const replacement = args.new ?? args.new_string;
      if (typeof old !== 'string' || old === '' || typeof replacement !== 'string') throw new ToolRefusal("edit_file needs 'old' (non-empty) and 'new' strings.");
      const { real, where, judge } = await target('rw');
      return ctx.usage.serialised(root, async () => {
        const handle = await openFile(real, where, judge, true);
        try {
          const text = await readCapped(handle, where, ctx);
          const at = text.indexOf(old);
          if (at < 0) throw new ToolRefusal(`The text to replace was not found in ${where}.`);
          if (text.indexOf(old, at + 1) >= 0) throw new ToolRefusal(`The text to replace occurs more than once in ${where}; give a longer, unique passage.`);
          const bytes = Buffer.from(text.slice(0, at) + replacement + text.slice(at + old.length), 'utf8');
          refuseLargeWrite(bytes.length, ctx);
          const settle = await ctx.usage.chargeWrite(root, real, where, bytes.length, ctx.limits, marker, ctx.signal);
          let written = false;
          try {
            await replaceContent(handle, bytes);
            written = true;
          } finally {
            settle(written);
          }
        } finally {
          await handle.close();
        }
        ctx.wrote?.(real);
        return `Edited ${where}: replaced 1 occurrence.`;
      });
    }
  }
}

/** The whole file as text, refused over `maxReadBytes` (also when it grows while being read). */
async function readCapped(handle: FileHandle, where: string, ctx: ToolContext): Promise<string> {
  const max = ctx.limits.maxReadBytes;
  const tooLarge = (size: string) => new ToolRefusal(`${where} is ${size}, over the ${formatBytes(max)} a file tool reads (gateway-runs setting workspace.maxReadBytes); read a smaller file.`);
  const { size } = await handle.stat();
  if (size > max) throw tooLarge(formatBytes(size));
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error('aborted');
    const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, max + 1 - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, total);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
    if (total > max) throw tooLarge(`more than ${formatBytes(max)}`);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

function refuseLargeWrite(bytes: number, ctx: ToolContext): void {
  const max = ctx.limits.maxWriteBytes;
  if (bytes > max) throw new ToolRefusal(`The content is ${formatBytes(bytes)}, over the ${formatBytes(max)} a file tool writes (gateway-runs setting workspace.maxWriteBytes); write less, or in several files.`);
}

/** Replaces the file's content through its (judged) descriptor. */
async function replaceContent(handle: FileHandle, bytes: Buffer): Promise<void> {
  await handle.truncate(0);
  let written = 0;
  while (written < bytes.length) written += (await handle.write(bytes, written, bytes.length - written, written)).bytesWritten;
}

/** A path as the model gave it when it lies in the run's folder or is relative, else as given (never a real path it did not give). */
function shown(root: string, requested: string, real: string): string {
  if (path.isAbsolute(requested)) return requested;
  return path.normalize(requested) || path.relative(root, real) || '.';
}

/** A file system error as a sentence naming the path as given (never the real path). */
export function fsSentence(e: NodeJS.ErrnoException, requested: string): string {
  switch (e.code) {
    case 'ENOENT':
      return `${requested}: no such file or folder.`;
    case 'ENOTDIR':
      return `${requested}: a part of the path is not a folder.`;
    case 'EISDIR':
      return `${requested} is a folder, not a file.`;
    case 'EACCES':
    case 'EPERM':
      return `${requested}: the server may not access this path.`;
    case 'ELOOP':
      return `${requested} became a link while it was being opened; links are followed only when the path is checked. Try again.`;
    case 'ENXIO':
    case 'ENODEV':
      return `${requested} is not a regular file; the file tools open only regular files and folders.`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `${requested}: no space left on the server's disk.`;
    case 'EROFS':
      return `${requested}: the file system is read-only.`;
    case 'ENAMETOOLONG':
      return `${requested}: the path is too long.`;
    default:
      // Never the system's message: it carries the real path.
      return `${requested}: the file operation failed (${e.code ?? 'unknown error'}).`;
  }
}
