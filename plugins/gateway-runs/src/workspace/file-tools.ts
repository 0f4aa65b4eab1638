/**
 * The file tools an agent (or a `tool_calls` node) may run, confined by the workspace policy:
 * `list_files`, `read_file`, `write_file`, `edit_file` (names from the reference's default tool
 * list). Relative paths resolve against the run's folder. A tool that cannot do what it was asked
 * (a refused path, a missing file, an edit that does not match once) answers `success: false` with
 * the reason in `error`; the effect itself still completes, and the model sees the reason.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MARKER_FILE, type WorkspacePolicy } from './workspace-policy.js';

export const FILE_TOOLS = ['list_files', 'read_file', 'write_file', 'edit_file'] as const;
export type FileTool = (typeof FILE_TOOLS)[number];

/** How much of a file `read_file` returns at most (characters). */
export const MAX_READ_CHARS = 64 * 1024;
/** How many entries `list_files` returns at most. */
export const MAX_LIST_ENTRIES = 500;

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

class ToolError extends Error {}

/** Runs each call in order; answers the TOOL_CALLS result (reference: `{mode: "executed", results}`). */
export function executeToolCalls(policy: WorkspacePolicy, rootRunId: string, calls: ToolCall[], allowed?: string[] | null): { mode: 'executed'; results: ToolResult[] } {
  const results = calls.map((call) => {
    const base = { call_id: call.call_id, name: call.name };
    try {
      if (!isFileTool(call.name) || (allowed && allowed.length && !allowed.includes(call.name))) throw new ToolError(`the tool '${call.name}' is not available on this gateway`);
      return { ...base, success: true, output: runTool(policy, rootRunId, call.name, call.arguments ?? {}), error: null };
    } catch (err) {
      if (err instanceof ToolError) return { ...base, success: false, output: null, error: err.message };
      const e = err as NodeJS.ErrnoException;
      return { ...base, success: false, output: null, error: fsSentence(e, String(call.arguments?.path ?? '.')) };
    }
  });
  return { mode: 'executed', results };
}

function runTool(policy: WorkspacePolicy, rootRunId: string, name: FileTool, args: Record<string, unknown>): string {
  const root = policy.runRoot(rootRunId);
  const target = (need: 'ro' | 'rw', fallback?: string) => {
    const given = args.path ?? args.file_path;
    const requested = given === undefined || given === null || given === '' ? fallback : given;
    if (typeof requested !== 'string' || requested === '') throw new ToolError(`${name} needs a 'path' argument.`);
    const access = policy.check(rootRunId, requested, need);
    if (!access.ok) throw new ToolError(access.sentence);
    if (need === 'rw' && access.path === path.join(root, MARKER_FILE)) {
      throw new ToolError(`${MARKER_FILE} marks the run's workspace folder; it cannot be changed.`);
    }
    return { real: access.path, shown: shown(root, requested, access.path) };
  };
  switch (name) {
    case 'list_files': {
      const { real, shown: where } = target('ro', '.');
      const entries = readdirSync(real, { withFileTypes: true })
        .filter((e) => !(e.name === MARKER_FILE && real === root))
        .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
        .sort((a, b) => a.localeCompare(b));
      if (!entries.length) return `${where} is empty.`;
      const listed = entries.slice(0, MAX_LIST_ENTRIES);
      return [`${where}:`, ...listed, ...(entries.length > listed.length ? [`… ${entries.length - listed.length} more not shown`] : [])].join('\n');
    }
    case 'read_file': {
      const { real, shown: where } = target('ro');
      if (statSync(real).isDirectory()) throw new ToolError(`${where} is a folder; use list_files.`);
      let text = readFileSync(real, 'utf8');
      const start = args.start_line === undefined || args.start_line === null ? null : Number(args.start_line);
      const end = args.end_line === undefined || args.end_line === null ? null : Number(args.end_line);
      if ((start !== null && !(Number.isInteger(start) && start >= 1)) || (end !== null && !(Number.isInteger(end) && end >= 1))) throw new ToolError('start_line and end_line are whole numbers from 1.');
      if (start !== null || end !== null) text = text.split('\n').slice((start ?? 1) - 1, end ?? undefined).join('\n');
      if (text.length > MAX_READ_CHARS) return `${text.slice(0, MAX_READ_CHARS)}\n[truncated: ${text.length - MAX_READ_CHARS} more characters; read a line range]`;
      return text;
    }
    case 'write_file': {
      const { real, shown: where } = target('rw');
      if (typeof args.content !== 'string') throw new ToolError("write_file needs a 'content' string.");
      mkdirSync(path.dirname(real), { recursive: true });
      writeFileSync(real, args.content);
      return `Wrote ${Buffer.byteLength(args.content)} bytes to ${where}.`;
    }
    case 'edit_file': {
      const { real, shown: where } = target('rw');
      const old = args.old ?? args.old_string;
      const replacement = args.new ?? args.new_string;
      if (typeof old !== 'string' || old === '' || typeof replacement !== 'string') throw new ToolError("edit_file needs 'old' (non-empty) and 'new' strings.");
      const text = readFileSync(real, 'utf8');
      const at = text.indexOf(old);
      if (at < 0) throw new ToolError(`The text to replace was not found in ${where}.`);
      if (text.indexOf(old, at + 1) >= 0) throw new ToolError(`The text to replace occurs more than once in ${where}; give a longer, unique passage.`);
      writeFileSync(real, text.slice(0, at) + replacement + text.slice(at + old.length));
      return `Edited ${where}: replaced 1 occurrence.`;
    }
  }
}

/** A path as the model gave it when it lies in the run's folder, else the real path. */
function shown(root: string, requested: string, real: string): string {
  return path.isAbsolute(requested) ? real : path.normalize(requested) || path.relative(root, real) || '.';
}

function fsSentence(e: NodeJS.ErrnoException, requested: string): string {
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
    default:
      return e.message ?? String(e);
  }
}
