/**
 * `artifact_envelope_v1` (seed §2.6, reference gateway-surfaces §2.6): one normalised description of
 * an artifact built from what is known — the record's own fields (the producer's descriptor), then
 * its tags, then the legacy inference from the content type and names. Producer data that is
 * missing stays missing (`{}` / `[]` / null), and links are only ever relative gateway links.
 */
import type { ArtifactRecord } from '../artifact-record.js';
import { ownerRunId, referenceOf } from '../artifact-reference.js';
import { inferSemanticKind, modalityFromContentType, renderKindOf } from './artifact-classification.js';

export const ENVELOPE_SCHEMA = 'abstractgateway.artifact_envelope.v1';
const LEGACY_SOURCE = 'gateway_legacy_projection';
const RECORD_SOURCE = 'artifact_record';
const GATEWAY_PREFIX = '/api/gateway/';

/** The classification and producer fields search filters on and the envelope shows. */
export interface NormalisedFields {
  run_id: string | null;
  semantic_kind: string;
  render_kind: string;
  modality: string;
  classification_source: string;
  task: string | null;
  workflow_id: string | null;
  node_id: string | null;
  turn_id: string | null;
  ledger_cursor: number | string | null;
  step_id: string | null;
  effect_id: string | null;
  parent_run_id: string | null;
  actor_id: string | null;
  title: string;
}

/** First value that is a non-empty string (numbers count, as text ids). */
function first(...values: unknown[]): string | null {
  for (const v of values) {
    if (typeof v === 'string' && v.trim() !== '') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  }
  return null;
}

function objectOrEmpty(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function titleCase(kind: string): string {
  return kind.replace(/[_-]+/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());
}

export function normalisedFields(record: ArtifactRecord): NormalisedFields {
  const tags = record.tags;
  const modality = first(record.modality, tags.modality) ?? modalityFromContentType(record.content_type);
  const renderKind = first(record.render_kind) ?? renderKindOf(record.content_type);
  const declared = first(record.semantic_kind);
  const semanticKind = declared ?? inferSemanticKind({ tags, modality, renderKind, contentType: record.content_type, filename: record.filename, path: record.source_path ?? record.path });
  const generation = objectOrEmpty(record.generation);
  const producer = objectOrEmpty(record.producer);
  const sourcePath = first(tags.path, tags.source_path, record.source_path, record.path);
  const ledgerCursor = record.ledger_cursor ?? first(tags.ledger_cursor, tags.step_cursor);
  return {
    run_id: first(ownerRunId(record), tags.run_id),
    semantic_kind: semanticKind.toLowerCase(),
    render_kind: renderKind.toLowerCase(),
    modality: modality.toLowerCase(),
    classification_source: declared ? RECORD_SOURCE : LEGACY_SOURCE,
    task: first(tags.task),
    workflow_id: first(record.workflow_id, tags.workflow_id, tags.workflow),
    node_id: first(record.node_id, tags.node_id, tags.node),
    turn_id: first(record.turn_id, tags.turn_id, tags.turn),
    ledger_cursor: ledgerCursor,
    step_id: first(tags.step_id),
    effect_id: first(tags.effect_id, tags.effect_idempotency_key),
    parent_run_id: first(tags.parent_run_id),
    actor_id: first(tags.actor_id),
    title:
      first(tags.title, tags.name, tags.label, generation.title, generation.prompt_title, producer.task, tags.filename, record.filename, sourcePath?.split('/').pop()) ??
      `${titleCase(semanticKind)} ${record.artifact_id.slice(0, 12)}`,
  };
}

/**
 * A link the envelope may carry: a gateway route (`/api/gateway/...`) or a client route (`#/...`),
 * nothing that leaves the page (absolute or protocol-relative URLs, `javascript:`), no `..` segment,
 * no backslash or control character.
 */
export function isSafeLink(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 2048) return false;
  if (!(value.startsWith(GATEWAY_PREFIX) || value.startsWith('#/'))) return false;
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return false;
  const pathPart = value.split(/[?#]/, 1)[0]!;
  return !pathPart.split('/').some((segment) => segment === '..' || segment === '.' || /%2e%2e|%2f|%5c/i.test(segment));
}

/** The producer's links that are safe, then the gateway's own links for this artifact. */
function linksOf(record: ArtifactRecord, runId: string | null): Record<string, string> {
  const links: Record<string, string> = {};
  for (const [name, value] of Object.entries(objectOrEmpty(objectOrEmpty(record.producer).links))) {
    if (isSafeLink(value)) links[name] = value;
  }
  if (runId) {
    const run = `${GATEWAY_PREFIX}runs/${encodeURIComponent(runId)}`;
    const detail = `${run}/artifacts/${encodeURIComponent(record.artifact_id)}`;
    Object.assign(links, {
      detail,
      content: `${detail}/content`,
      preview: `${detail}/content?access=preview`,
      download: `${detail}/content?access=download`,
      run_artifacts: `${run}/artifacts`,
      ledger: `${run}/ledger`,
      run,
      observe_route: `#/observe/${encodeURIComponent(runId)}`,
    });
  }
  return links;
}

function hasTrace(...sources: Record<string, unknown>[]): boolean {
  return sources.some((s) => Object.keys(s).some((key) => /(^|_)(provider_)?trace(_id|_ref|_link)?$/.test(key) && first(s[key]) !== null));
}

/** The envelope of one record. */
export function envelopeOf(record: ArtifactRecord, fields: NormalisedFields = normalisedFields(record)) {
  const producer = objectOrEmpty(record.producer);
  const generation = objectOrEmpty(record.generation);
  const links = linksOf(record, fields.run_id);
  const traceAvailable = hasTrace(links, producer);
  const knownRun = fields.run_id !== null;
  const actions = { preview: knownRun, download: knownRun, open_run: knownRun, open_ledger: knownRun, open_provider_trace: traceAvailable };
  return {
    schema: ENVELOPE_SCHEMA,
    schema_version: 1,
    artifact_id: record.artifact_id,
    run_id: fields.run_id,
    content_type: record.content_type,
    size_bytes: record.size_bytes,
    created_at: record.created_at,
    tags: record.tags,
    filename: first(record.tags.filename, record.filename),
    source_path: first(record.tags.path, record.tags.source_path, record.source_path, record.path),
    sha256: first(record.tags.sha256, record.sha256),
    modality: fields.modality,
    ref: referenceOf(record),
    semantic_kind: fields.semantic_kind,
    render_kind: fields.render_kind,
    task: fields.task,
    classification_source: fields.classification_source,
    session_id: record.session_id ?? first(record.tags.session_id),
    workflow_id: fields.workflow_id,
    node_id: fields.node_id,
    step_id: fields.step_id,
    effect_id: fields.effect_id,
    turn_id: fields.turn_id,
    ledger_cursor: fields.ledger_cursor,
    parent_run_id: fields.parent_run_id,
    actor_id: fields.actor_id,
    title: fields.title,
    media: {},
    generation,
    producer,
    provenance: {},
    source_refs: [] as unknown[],
    access: {},
    links,
    actions,
    available_actions: Object.entries(actions).filter(([, on]) => on).map(([name]) => name),
    provider_trace_available: traceAvailable,
    audit_available: 'audit' in links || 'audit_tail' in links,
    legacy_inferred: fields.classification_source === LEGACY_SOURCE,
    descriptor: null,
  };
}

export type ArtifactEnvelope = ReturnType<typeof envelopeOf>;

/** A search row: the envelope's fields flattened, plus the envelope itself. */
export function searchRowOf(record: ArtifactRecord): Record<string, unknown> {
  const envelope = envelopeOf(record);
  const { schema: _schema, schema_version: _version, actions: _actions, ...flat } = envelope;
  return { ...flat, artifact_envelope_v1: envelope };
}
