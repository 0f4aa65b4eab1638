/**
 * `format_tool_results` (reference runtime-nodes §3.10): the results of a Tool Calls node as one
 * digest line each, `- name(primary) [STATUS] : observation`.
 */
import { TOOL_SPECS } from '../../workspace/file-tools.js';
import { pythonJsonDumps, pythonStr } from '../python-text.js';
import { isRecord, type Helpers } from './helper.js';

const ARGUMENT_CLAMP = 160;
const OBSERVATION_CLAMP = 420;

/** The argument order that picks a tool's primary argument, from the gateway's own tool specs (as the origin uses its default tools'). */
function specOrder(name: string): string[] {
  const parameters = TOOL_SPECS.find((t) => t.name === name)?.parameters as { properties?: Record<string, unknown>; required?: unknown } | undefined;
  if (!parameters) return [];
  const required = Array.isArray(parameters.required) ? parameters.required.filter((k): k is string => typeof k === 'string' && k.trim() !== '') : [];
  return required.length ? required.map((k) => k.trim()) : Object.keys(parameters.properties ?? {}).filter((k) => k.trim()).map((k) => k.trim());
}

/** At most `max` characters (code points); a longer text keeps `max - 1` and ends with `…`. */
function clamp(text: string, max: number): string {
  const chars = Array.from(text.trim());
  return chars.length <= max ? chars.join('') : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** Line breaks normalised, blank lines dropped, the rest joined by one space. */
function oneLine(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(/\r/g, '\n').split('\n').filter((line) => line.trim()).join(' ').trim();
}

function formatValue(value: unknown, max = ARGUMENT_CLAMP): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return pythonStr(value);
  if (typeof value === 'string') return clamp(oneLine(value), max);
  return clamp(oneLine(pythonJsonDumps(value, { ensureAscii: false, separators: [',', ':'], sortKeys: true })), max);
}

function signature(tool: string, args: Record<string, unknown>, output: Record<string, unknown>): string {
  let order = specOrder(tool);
  if (order.length === 0) order = [...new Set([...Object.keys(args), ...Object.keys(output)].filter((k) => k.trim()).map((k) => k.trim()))];
  const pick = (source: Record<string, unknown>) => order.find((k) => Object.hasOwn(source, k) && source[k] !== null && source[k] !== undefined);
  const fromArgs = pick(args);
  const key = fromArgs ?? pick(output);
  if (key === undefined) return `${tool}()`;
  return `${tool}(${formatValue(fromArgs !== undefined ? args[key] : output[key])})`;
}

function observation(success: boolean | null, error: string, output: unknown): string {
  if (success === false && error) return error;
  if (isRecord(output)) {
    const rendered = output.rendered;
    return typeof rendered === 'string' && rendered.trim() ? rendered.trim() : formatValue(output, OBSERVATION_CLAMP);
  }
  if (typeof output === 'string') return clamp(oneLine(output), OBSERVATION_CLAMP);
  if (output === null || output === undefined) return '(no output)';
  return clamp(oneLine(pythonStr(output)), OBSERVATION_CLAMP);
}

/** The digest of `results` (a list, or a single object as a one-item list); `""` when empty. */
export function formatToolResults(results: unknown): string {
  const items = results === null || results === undefined ? [] : Array.isArray(results) ? results : [results];
  const lines = items.filter(isRecord).map((item) => {
    const tool = pythonStr(item.name || item.tool || '').trim() || 'tool';
    const success = typeof item.success === 'boolean' ? item.success : null;
    const error = item.error === null || item.error === undefined ? '' : pythonStr(item.error).trim();
    const args = isRecord(item.arguments) ? item.arguments : {};
    const output = item.output;
    const sig = signature(tool, args, isRecord(output) ? output : {});
    const status = success === true ? 'SUCCESS' : success === false ? 'FAILURE' : 'DONE';
    const obs = observation(success, error, output);
    return `- ${sig} [${status}] : ${obs.trim() ? obs : '(no output)'}`;
  });
  return lines.join('\n').trim();
}

export const toolResultHelpers: Helpers = {
  format_tool_results: (i) => formatToolResults(i.tool_results ?? i.results),
};
