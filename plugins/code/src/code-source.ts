/**
 * The Python a `code` node runs, generated as the origin does (runtime-nodes §4): a string
 * `codeBody` (even empty) becomes `<functionName>(_input)` with one local per input pin; otherwise
 * the legacy `code` is the whole source. Also the node's permission mode.
 */
import type { FlowNode } from '@keel/plugin-gateway-runs';
import type { CodeMode } from './worker-protocol.js';

const PYTHON_KEYWORDS = new Set([
  'False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else',
  'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise',
  'return', 'try', 'while', 'with', 'yield',
]);

const IDENTIFIER = /^[\p{L}_][\p{L}\p{N}_]*$/u;

/** The function the node calls: `functionName`, or `transform` when it is missing, invalid or a keyword. */
export function functionNameOf(node: FlowNode): string {
  const name = node.data.functionName;
  return typeof name === 'string' && IDENTIFIER.test(name) && !PYTHON_KEYWORDS.has(name) ? name : 'transform';
}

/** A pin id as a Python local: other characters become `_`, `p_` before a leading digit, `_` after a keyword, `param` when empty. */
export function pinLocalName(pinId: string): string {
  let name = pinId.replace(/[^A-Za-z0-9_]/g, '_');
  if (!name) return 'param';
  if (!/^[A-Za-z_]/.test(name)) name = `p_${name}`;
  if (PYTHON_KEYWORDS.has(name)) name = `${name}_`;
  return name;
}

/** Python's `textwrap.dedent`: the whitespace every non-blank line starts with is removed; blank lines become empty. */
export function dedent(text: string): string {
  const lines = text.split('\n').map((line) => (line.trim() === '' ? '' : line));
  let common: string | null = null;
  for (const line of lines) {
    if (!line) continue;
    const lead = /^[ \t]*/.exec(line)![0];
    if (common === null) common = lead;
    else {
      let i = 0;
      while (i < common.length && i < lead.length && common[i] === lead[i]) i++;
      common = common.slice(0, i);
    }
  }
  return common ? lines.map((line) => line.slice(common!.length)).join('\n') : lines.join('\n');
}

/** The Python source the node runs and the function to call. */
export function codeSourceOf(node: FlowNode): { source: string; functionName: string } {
  const functionName = functionNameOf(node);
  const body = node.data.codeBody;
  if (typeof body !== 'string') return { source: typeof node.data.code === 'string' ? node.data.code : '', functionName };
  const pins = (node.data.inputs ?? []).filter((p) => p.type !== 'execution' && p.id !== 'permissions');
  const locals = pins.map((p) => `    ${pinLocalName(p.id)} = _input.get(${JSON.stringify(p.id)})`);
  const trimmed = dedent(body).trim() || 'return _input';
  const lines = trimmed.split('\n').map((line) => (line ? `    ${line}` : ''));
  return { source: [`def ${functionName}(_input):`, ...locals, ...lines, ''].join('\n'), functionName };
}

/** The node's permission mode from its `permissions` input (else its default, else sandbox); an error text for an unknown one. */
export function permissionModeOf(value: unknown): CodeMode | { error: string } {
  const raw = value === null || value === undefined ? 'sandbox' : String(value);
  const mode = raw.toLowerCase().replace(/-/g, '_');
  if (['', 'safe', 'protected', 'restricted', 'sandboxed', 'sandbox'].includes(mode)) return 'sandbox';
  if (['full', 'unrestricted', 'full_access'].includes(mode)) return 'full_access';
  return { error: `Unsupported code execution permissions: '${raw}'` };
}
