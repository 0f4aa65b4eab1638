/** `make_meta` (reference runtime-nodes §3.4): the host-facing meta envelope of an agent answer. */
import { pythonStr } from '../python-text.js';
import { isRecord, type Helpers, type Inputs } from './helper.js';

const DEFAULT_SCHEMA = 'abstractcode.agent.v1.meta';

const trimmed = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** Python `int(x)` of a number, or `int(float(s))` of a numeric text; undefined when neither (booleans too). */
function toInt(v: unknown): number | undefined {
  if (typeof v === 'boolean') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() && /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(v.trim()) ? Number(v.trim()) : NaN;
  return Number.isFinite(n) ? Math.trunc(n) : undefined;
}

/** A non-null value as a trimmed non-empty text (`str()` of a number), else undefined. */
const named = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : pythonStr(v).trim() || undefined);

function makeMeta(i: Inputs): Record<string, unknown> {
  const meta: Record<string, unknown> = isRecord(i.extra) ? { ...i.extra } : {};
  meta.schema = trimmed(i.schema) ?? DEFAULT_SCHEMA;
  meta.version = toInt(i.version) ?? 1;
  const set = (key: string, value: unknown) => {
    if (value !== undefined) meta[key] = value;
  };
  set('output_mode', trimmed(i.output_mode));
  set('provider', named(i.provider));
  set('model', named(i.model));
  set('sub_run_id', trimmed(i.sub_run_id));
  for (const key of ['iterations', 'tool_calls', 'tool_results']) set(key, toInt(i[key]));
  set('finish_reason', trimmed(i.finish_reason));
  for (const key of ['gen_time', 'ttft_ms']) if (i[key] !== null && i[key] !== undefined && typeof i[key] !== 'boolean') meta[key] = i[key];
  if (isRecord(i.usage)) meta.usage = { ...i.usage };
  if (isRecord(i.trace)) meta.trace = { ...i.trace };
  else if (trimmed(i.trace)) meta.trace = { trace_id: trimmed(i.trace) };
  const traceId = trimmed(i.trace_id);
  if (traceId) meta.trace = { ...(isRecord(meta.trace) ? meta.trace : {}), trace_id: traceId };
  if (Array.isArray(i.warnings)) meta.warnings = i.warnings.map((w) => pythonStr(w)).filter((w) => w.trim());
  else if (trimmed(i.warnings)) meta.warnings = [trimmed(i.warnings)];
  if (isRecord(i.debug)) meta.debug = { ...i.debug };
  else if (i.debug !== null && i.debug !== undefined) meta.debug = i.debug;
  return { meta };
}

export const metaHelpers: Helpers = {
  make_meta: (i) => makeMeta(i),
};
