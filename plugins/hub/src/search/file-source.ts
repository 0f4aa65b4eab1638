/**
 * File hits: live vfs files of the scoped channels, matched on path and text content (binary
 * files on their description only). Files are read at search time — a channel holds few enough
 * that a scan stays cheap, and it is always current. `ref` is the path.
 */
import type { ChannelFs } from '../content/fs/channel-fs.js';
import type { HitKind } from './search-request.js';
import { inWindow, type Candidate, type MatchMode, type MeaningDoc, type SearchScope, type SearchSource } from './search-hit.js';
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
        const candidate = this.candidate(scope, channel, entry.path, (path, text) => scoreText(path, text, r.terms, mode));
        if (candidate) out.push(candidate);
      }
    }
    return out;
  }

  /** Files found by meaning, through the same filters as `find`, scored by closeness. */
  byMeaning(scope: SearchScope, docs: MeaningDoc[]): Candidate[] {
    const r = scope.request;
    if (r.rated !== null || r.minVotes > 0) return [];
    return docs.flatMap((doc) => (scope.channels.has(doc.channel) ? [this.candidate(scope, doc.channel, doc.ref, () => doc.score)] : [])).filter((c): c is Candidate => c !== null);
  }

  private candidate(scope: SearchScope, channel: string, path: string, score: (path: string, text: string) => number | null): Candidate | null {
    const r = scope.request;
    const file = this.fs.head(channel, path);
    if (!file) return null;
    if ((r.sender !== null && file.updated_by !== r.sender) || !inWindow(file.updated_at, r)) return null;
    const text = file.content_b64 === null ? file.content : file.description;
    if (r.ref !== null && !text.toLowerCase().includes(r.ref.toLowerCase())) return null;
    const value = score(file.path.replace(/[/._-]+/g, ' '), text);
    if (value === null) return null;
    return {
      ref: file.path,
      hit: () => ({
        kind: 'file', ref: file.path, channel, seq: null, sender: file.updated_by, status: null, created_at: file.updated_at,
        ...snippetOf(text || file.path, r.terms), title: file.path, thread_hits: null, ratings: null,
      }),
      section: 'files', score: value, votes: 0, at: file.updated_at, fuseKey: `file\u0000${channel}\u0000${file.path}`,
    };
  }
}
