/**
 * The `artifacts` of an occurrence row (reference §3.8): the artifacts its run recorded, read
 * through the artifacts plugin's token when it is loaded (without it an occurrence lists none).
 * `name` is the tag `filename`, else the record's filename, else the id.
 */
import type { ArtifactsService } from '@keel/plugin-artifacts';

export interface OccurrenceArtifact {
  artifact_id: string;
  name: string;
  mime_type: string;
  url: string;
}

export type OccurrenceArtifactsReader = (account: string, runId: string) => OccurrenceArtifact[];

/** The reader over the artifacts plugin's records; `max` bounds one row's list (the oldest first). */
export function occurrenceArtifacts(artifacts: ArtifactsService | undefined, max: number): OccurrenceArtifactsReader {
  return (account, runId) => {
    if (!artifacts) return [];
    const out: OccurrenceArtifact[] = [];
    for (const record of artifacts.scan(account, { runId })) {
      if (out.length >= max) break;
      out.push({
        artifact_id: record.artifact_id,
        name: record.tags.filename || record.filename || record.artifact_id,
        mime_type: record.content_type,
        url: `/api/gateway/runs/${encodeURIComponent(runId)}/artifacts/${encodeURIComponent(record.artifact_id)}/content`,
      });
    }
    return out;
  };
}
