/**
 * What a definition's `target.input_data` may hold, frozen at creation and at each revise of the
 * target (reference gateway-surfaces §3.3 "Input protection"): keys the gateway owns are dropped,
 * the workspace choice is normalised (`{configured: false}` = the owner's default at each
 * occurrence), and `use_context` is set (the engine sets it per context mode at admission).
 */
import path from 'node:path';
import { automationError, invalidDefinition } from '../errors.js';
import { isPlainObject, type Json } from './shape.js';

const FIELD = 'target.input_data';

/** Server-owned top-level keys: the gateway writes them on a run, never a client. */
const SERVER_KEYS = new Set(['_meta', 'workspace_read_only', 'workflow_selection', '_gateway_workspace']);

/** Keys a workspace resolution derives (and their camel-case aliases): recomputed at each occurrence. */
const DERIVED_WORKSPACE_KEYS = new Set([
  'workspace_access_mode', 'workspace_read_only_paths', 'workspace_writable_paths', 'workspace_ignored_paths',
  'workspace_builtin_deny_prefixes', 'workspace_builtin_allow', 'workspace_root',
  'workspaceAccessMode', 'workspaceAllowedPaths', 'workspaceReadOnlyPaths', 'workspaceWritablePaths', 'workspaceIgnoredPaths',
  'workspaceBuiltinDenyPrefixes', 'workspaceBuiltinAllow', 'workspaceRoot',
]);

/** The only `_runtime` keys a client may set on an automation's runs. */
const CLIENT_RUNTIME_KEYS = new Set(['allowed_tools', 'provider', 'model', 'thinking', 'speculation', 'stream']);

const POSTURES = ['allowed_only', 'any_except_denied'];
const DEFAULT_MODES = ['ro', 'rw'];
const FOLDER_MODES = ['ro', 'rw', 'deny'];

/** The protected copy of a client's `input_data` (a new object; the argument is not changed). */
export function protectInputData(input: unknown, maxBytes: number): Json {
  if (input === undefined) input = {};
  if (!isPlainObject(input)) throw invalidDefinition(FIELD, `${FIELD} must be an object.`);
  if (Buffer.byteLength(JSON.stringify(input), 'utf8') > maxBytes) {
    throw invalidDefinition(FIELD, `${FIELD} is larger than ${maxBytes} bytes as JSON (setting limits.maxInputDataBytes).`);
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(input)) {
    // An own `__proto__` key (JSON.parse makes one) would set the copy's prototype on assignment.
    if (key === '__proto__') throw invalidDefinition(`${FIELD}.__proto__`, `${FIELD} may not have a key named __proto__.`);
    if (SERVER_KEYS.has(key) || DERIVED_WORKSPACE_KEYS.has(key)) continue;
    if (key === '_runtime') {
      const runtime = protectRuntime(value);
      if (runtime) out._runtime = runtime;
      continue;
    }
    if (key === 'workspace' || key === 'workspace_allowed_paths') continue;
    out[key] = value;
  }
  out.workspace = workspaceChoice(input.workspace, input.workspace_allowed_paths);
  out.use_context = true;
  return out;
}

function protectRuntime(value: unknown): Json | null {
  if (!isPlainObject(value)) throw invalidDefinition(`${FIELD}._runtime`, `${FIELD}._runtime must be an object.`);
  const kept: Json = {};
  for (const [key, inner] of Object.entries(value)) if (CLIENT_RUNTIME_KEYS.has(key)) kept[key] = inner;
  if ('stream' in kept && typeof kept.stream !== 'boolean') {
    throw invalidDefinition(`${FIELD}._runtime.stream`, `${FIELD}._runtime.stream must be true or false.`);
  }
  return Object.keys(kept).length ? kept : null;
}

/**
 * "Use my default" (nothing sent, or `{configured: false}`) is stored as `{configured: false}`;
 * an explicit layer is checked and kept (clamped to the eligible set at each occurrence); a legacy
 * `workspace_allowed_paths` list becomes an `allowed_only` layer, each path asked read-write and
 * clamped to its cap at each occurrence.
 */
function workspaceChoice(workspace: unknown, legacyAllowed: unknown): Json {
  if (workspace !== undefined && workspace !== null) {
    if (isPlainObject(workspace) && workspace.configured === false) {
      if (Object.keys(workspace).length !== 1) throw invalidDefinition(`${FIELD}.workspace`, `${FIELD}.workspace {configured: false} takes no other field.`);
      if (legacyAllowed !== undefined) throw invalidDefinition(`${FIELD}.workspace_allowed_paths`, 'workspace_allowed_paths narrows an explicit workspace; it cannot be combined with {configured: false}.');
      return { configured: false };
    }
    const layer = explicitLayer(workspace);
    if (legacyAllowed !== undefined) throw invalidDefinition(`${FIELD}.workspace_allowed_paths`, 'Send either workspace or the legacy workspace_allowed_paths, not both.');
    return layer;
  }
  if (legacyAllowed === undefined || legacyAllowed === null) return { configured: false };
  if (!Array.isArray(legacyAllowed) || legacyAllowed.length === 0) {
    throw invalidDefinition(`${FIELD}.workspace_allowed_paths`, 'workspace_allowed_paths must be a non-empty list of absolute paths.');
  }
  const folders = legacyAllowed.map((p, i) => ({ path: absolutePath(p, `${FIELD}.workspace_allowed_paths[${i}]`), mode: 'rw' }));
  refuseDuplicates(folders, `${FIELD}.workspace_allowed_paths`);
  return { posture: 'allowed_only', default_mode: 'ro', folders };
}

function explicitLayer(workspace: unknown): Json {
  const field = `${FIELD}.workspace`;
  if (!isPlainObject(workspace)) throw invalidDefinition(field, `${field} must be {configured: false} or {posture, default_mode, folders}.`);
  for (const key of Object.keys(workspace)) {
    if (!['posture', 'default_mode', 'folders'].includes(key)) throw invalidDefinition(`${field}.${key}`, `${field}.${key} is not a workspace field (allowed: posture, default_mode, folders; or {configured: false}).`);
  }
  const posture = workspace.posture ?? 'allowed_only';
  if (typeof posture !== 'string' || !POSTURES.includes(posture)) throw invalidDefinition(`${field}.posture`, `${field}.posture must be one of ${POSTURES.join(', ')}.`);
  const defaultMode = workspace.default_mode ?? 'ro';
  if (typeof defaultMode !== 'string' || !DEFAULT_MODES.includes(defaultMode)) throw invalidDefinition(`${field}.default_mode`, `${field}.default_mode must be ro or rw.`);
  const rows = workspace.folders ?? [];
  if (!Array.isArray(rows)) throw invalidDefinition(`${field}.folders`, `${field}.folders must be a list of {path, mode}.`);
  const folders = rows.map((row: unknown, i) => {
    const at = `${field}.folders[${i}]`;
    if (!isPlainObject(row) || Object.keys(row).some((k) => k !== 'path' && k !== 'mode')) throw invalidDefinition(at, `${at} must be {path, mode}.`);
    const mode = row.mode ?? defaultMode;
    if (typeof mode !== 'string' || !FOLDER_MODES.includes(mode)) throw invalidDefinition(`${at}.mode`, `${at}.mode must be ro, rw or deny.`);
    return { path: absolutePath(row.path, `${at}.path`), mode };
  });
  refuseDuplicates(folders, `${field}.folders`);
  return { posture, default_mode: defaultMode, folders };
}

function absolutePath(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '' || value.length > 4096) throw invalidDefinition(field, `${field} must be an absolute path.`);
  // eslint-disable-next-line no-control-regex -- a path with a control character is refused, never stored
  if (/[\u0000-\u001f]/.test(value)) throw invalidDefinition(field, `${field} may not contain control characters.`);
  if (!path.isAbsolute(value)) throw invalidDefinition(field, `${field} must be an absolute path, not '${value}'.`);
  if (value.split(/[\\/]/).includes('..')) throw invalidDefinition(field, `${field} may not contain '..' segments.`);
  return value;
}

function refuseDuplicates(folders: Array<{ path: string }>, field: string): void {
  const seen = new Set<string>();
  for (const row of folders) {
    const key = path.normalize(row.path);
    if (seen.has(key)) throw automationError(422, 'invalid_definition', `${field} names ${row.path} twice.`, { field });
    seen.add(key);
  }
}
