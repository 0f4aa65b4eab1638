/**
 * Files a run writes into its workspace (agent `write_file` / `edit_file`, file and media nodes)
 * become artifacts of that run with their producer (run, node, ledger cursor), read on the opened
 * descriptor like any workspace file. The same bytes at the same path of the same run are recorded
 * once; a rewrite with other bytes is a new artifact. A file that cannot be read is logged, never
 * fails the run. The listener answers the artifact (made now or earlier), for the node that wrote it.
 */
import path from 'node:path';
import type { Logger } from '@keel/plugin-sdk';
import type { ProducedArtifact, ProducedFile } from '@keel/plugin-gateway-runs';
import type { ArtifactService } from './artifact-service.js';
import { BlobTooLarge } from './blob-store.js';
import { cleanFilename, resolveContentType } from './upload-names.js';
import { openSource } from './workspace-files.js';

export function producedFileListener(service: ArtifactService, maxBytes: () => number, log: Logger) {
  return async (file: ProducedFile): Promise<ProducedArtifact | void> => {
    const opened = await openSource(file.real_path);
    if (!opened.ok) {
      log.warn('a produced file was not recorded as an artifact', { run_id: file.run_id, path: file.rel_path, why: opened.why });
      return;
    }
    try {
      const pending = await service.blobs.write(file.account, opened.handle.createReadStream({ autoClose: false, start: 0 }), maxBytes());
      for (const earlier of service.index.scan(file.account, { runId: file.run_id })) {
        if (earlier.sha256 === pending.sha256 && earlier.source_path === file.rel_path) {
          await pending.discard();
          return referenceOf(earlier);
        }
      }
      const filename = cleanFilename(path.basename(file.rel_path));
      const made = await service.add(pending, {
        account: file.account,
        session_id: file.session_id,
        run_id: file.run_id,
        origin: 'run_output',
        filename,
        content_type: resolveContentType(filename, file.content_type, undefined),
        path: file.rel_path,
        source_path: file.rel_path,
        tags: { run_id: file.run_id, root_run_id: file.root_run_id, ...(file.node_id ? { node_id: file.node_id } : {}) },
        node_id: file.node_id,
        ledger_cursor: file.ledger_cursor,
        producer: { kind: 'run', run_id: file.run_id, root_run_id: file.root_run_id, node_id: file.node_id, ledger_cursor: file.ledger_cursor },
      });
      return referenceOf(made);
    } catch (err) {
      log.warn('a produced file was not recorded as an artifact', { run_id: file.run_id, path: file.rel_path, error: err instanceof BlobTooLarge ? `larger than ${err.limit} bytes` : (err as Error).message });
    } finally {
      await opened.handle.close();
    }
  };
}

const referenceOf = (record: { artifact_id: string; content_type: string; size_bytes: number }): ProducedArtifact => ({
  artifact_id: record.artifact_id,
  content_type: record.content_type,
  size_bytes: record.size_bytes,
});
