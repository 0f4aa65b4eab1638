/**
 * File hits: live vfs files of the scoped channels, matched on path and text content (binary
 * files on their description only). Files are read at search time — a channel holds few enough
 * that a scan stays cheap, and it is always current. `ref` is the path.
 */
import type { ChannelFs } from '../content/fs/channel-fs.js';
import type { HitKind } from './search-request.js';
import { inWindow, type Candidate, type MatchMode, type SearchScope, type SearchSource } from './search-hit.js';
import { scoreText, snippetOf } from './text-match.js';

export class FileSource implements SearchSource {
  readonly kinds: readonly HitKind[] = ['file'];

  constructor(private readonly fs: ChannelFs) {}

  find(scope: SearchScope, mode: MatchMode): Candidate[] {
    const r = scope.request;
    if (!r.terms.length || r.rated !== null || r.minVotes > 0) return [];
    const out: Candidate[] = [];
    for (const channel of scope.channels) {
      for (const entry of this.fs.list(channel)) {
        if ((r.sender !== null && entry.updated_by !== r.sender) || !inWindow(entry.updated_at, r)) continue;
        const file = this.fs.head(channel, entry.path);
        if (!file) continue;
        const text = file.content_b64 === null ? file.content : file.description;
        if (r.ref !== null && !text.toLowerCase().includes(r.ref.toLowerCase())) continue;
        const score = scoreText(file.path.replace(/[/._-]+/g, ' '), text, r.terms, mode);
        if (score === null) continue;
        out.push({
          ref: file.path,
          hit: () => ({
            kind: 'file', ref: file.path, channel, seq: null, sender: file.updated_by, status: null, created_at: file.updated_at,
            ...snippetOf(text || file.path, r.terms), title: file.path, thread_hits: null, ratings: null,
          }),
          section: 'files', score, votes: 0, at: file.updated_at,
        });
      }
    }
    return out;
  }
}
