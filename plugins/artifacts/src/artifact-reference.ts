/** The shapes clients see: the artifact reference (seed §2.6, reference §2.2) and a record's public metadata. */
import type { ArtifactRecord } from './artifact-record.js';
import { memoryRunIdOf } from './session-memory.js';

export interface ArtifactReference {
  $artifact: string;
  artifact_id: string;
  run_id: string | null;
  content_type: string;
  filename: string;
  modality: string | null;
  source_path?: string;
  sha256: string;
  target: 'client' | 'server';
}

/** The run id an artifact is reached under: its producer, else its session's memory run. */
export function ownerRunId(record: ArtifactRecord): string | null {
  if (record.run_id) return record.run_id;
  return record.session_id ? memoryRunIdOf(record.session_id) : null;
}

export function referenceOf(record: ArtifactRecord): ArtifactReference {
  const ref: ArtifactReference = {
    $artifact: record.artifact_id,
    artifact_id: record.artifact_id,
    run_id: ownerRunId(record),
    content_type: record.content_type,
    filename: record.filename,
    modality: record.modality,
    sha256: record.sha256,
    target: record.origin === 'upload' ? 'client' : 'server',
  };
  if (record.source_path) ref.source_path = record.source_path;
  return ref;
}

/** A record as the lists and the upload answer show it (the account plane is left out). */
export function metadataOf(record: ArtifactRecord): Record<string, unknown> {
  const { account: _account, ...rest } = record;
  return { ...rest, run_id: ownerRunId(record), producing_run_id: record.run_id };
}
