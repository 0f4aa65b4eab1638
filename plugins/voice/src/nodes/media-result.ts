/**
 * The result a media node records (reference runtime-nodes §10 "Result"): the `llm_call` result
 * shape with the generated items under `outputs.<modality>`, each carrying its artifact reference
 * `{$artifact, artifact_id, content_type, size_bytes}`.
 */
import type { ProducedArtifact } from '@keel/plugin-gateway-runs';

export interface ArtifactRef {
  $artifact: string;
  artifact_id: string;
  content_type: string;
  size_bytes: number;
}

export function artifactRefOf(made: ProducedArtifact): ArtifactRef {
  return { $artifact: made.artifact_id, artifact_id: made.artifact_id, content_type: made.content_type, size_bytes: made.size_bytes };
}

export interface MediaItem {
  modality: string;
  task: string;
  format: string;
  provider: string;
  model?: string;
  ref: ArtifactRef;
  metadata: Record<string, unknown>;
}

export function mediaResult(item: MediaItem): Record<string, unknown> {
  const entry = {
    modality: item.modality,
    task: item.task,
    content_type: item.ref.content_type,
    format: item.format,
    provider: item.provider,
    ...(item.model ? { model: item.model } : {}),
    artifact_ref: item.ref,
    metadata: item.metadata,
    artifact_id: item.ref.artifact_id,
    size_bytes: item.ref.size_bytes,
  };
  return {
    content: null,
    data: null,
    text: null,
    outputs: { [item.modality]: [entry] },
    resources: [],
    warnings: [],
    errors: [],
    usage: null,
    provider: item.provider,
    model: item.model ?? null,
    runtime_provider: item.provider,
    runtime_model: item.model ?? null,
    media_provider: item.provider,
    media_model: item.model ?? null,
    finish_reason: 'stop',
    metadata: item.metadata,
    artifact_ref: item.ref,
    artifact_id: item.ref.artifact_id,
  };
}
