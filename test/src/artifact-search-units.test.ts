import { expect } from 'chai';
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ArtifactRecord } from '../../plugins/artifacts/dist/artifact-record.js';
import { inferSemanticKind, renderKindOf } from '../../plugins/artifacts/dist/search/artifact-classification.js';
import { envelopeOf, isSafeLink, normalisedFields } from '../../plugins/artifacts/dist/search/artifact-envelope.js';
import { FacetCounter } from '../../plugins/artifacts/dist/search/search-facets.js';
import { matchesArtifactKind, rowFilter } from '../../plugins/artifacts/dist/search/search-filter.js';
import { decodeCursor, encodeCursor } from '../../plugins/artifacts/dist/search/search-order.js';
import { parseSearch, parseTags, type RawSearchQuery } from '../../plugins/artifacts/dist/search/search-params.js';
import { searchRowOfRecord } from '../../plugins/artifacts/dist/search/search-row.js';
import { TopRows } from '../../plugins/artifacts/dist/search/top-rows.js';
import { familyOf, parseExtensions } from '../../plugins/artifacts/dist/files/file-families.js';
import { aliasesOf, locate, modeOf, reachOf, slugOf } from '../../plugins/artifacts/dist/files/file-roots.js';
import { listFolder, openListed } from '../../plugins/artifacts/dist/files/folder-listing.js';

/** The pure parts of search and /files/list: parameters, classification, envelope, facets, families, roots. */

const LIMITS = { defaultLimit: 500, maxLimit: 10_000 };
const parse = (raw: RawSearchQuery) => parseSearch(raw, LIMITS);

function refused(fn: () => unknown): { status: number; message: string } {
  try {
    fn();
  } catch (err) {
    const e = err as { status: number; message: string };
    return { status: e.status, message: e.message };
  }
  throw new Error('expected a refusal');
}

function record(over: Partial<ArtifactRecord> = {}): ArtifactRecord {
  return {
    artifact_id: 'abcdefghijklmnopqrstuv', account: 'default:bob', run_id: null, session_id: 's1', sha256: 'f'.repeat(64), size_bytes: 10,
    content_type: 'application/octet-stream', filename: 'blob.bin', path: 'client:blob.bin', source_path: null, origin: 'upload', tags: {},
    semantic_kind: null, render_kind: null, modality: null, workflow_id: null, node_id: null, turn_id: null, ledger_cursor: null,
    producer: null, generation: null, created_at: '2026-11-24T10:00:00.000Z', ...over,
  };
}

describe('artifact search: parameters', () => {
  it('defaults to scope all, page 500, newest first', () => {
    const r = parse({});
    expect(r).to.include({ scope: 'all', limit: 500, offset: 0, orderBy: 'created_at', order: 'desc', includeStats: false });
  });

  it('bounds limit: <= 0 is the default page, positive limits are capped, debug_unlimited lifts the bound', () => {
    expect(parse({ limit: '0' }).limit).to.equal(500);
    expect(parse({ limit: '-1' }).limit).to.equal(500);
    expect(parse({ limit: '20' }).limit).to.equal(20);
    expect(parse({ limit: '999999' }).limit).to.equal(10_000);
    expect(parse({ limit: '-1', debug_unlimited: 'true' }).limit).to.equal(null);
    expect(parse({ limit: '7', debug_unlimited: 'true' }).limit).to.equal(7);
  });

  it('refuses malformed values with 400 and a sentence naming the parameter', () => {
    const cases: Array<[RawSearchQuery, RegExp]> = [
      [{ scope: 'everything' }, /scope must be/],
      [{ scope: 'session' }, /needs a session_id/],
      [{ scope: 'run' }, /needs a run_id/],
      [{ scope: 'all', session_id: 's' }, /scope=all/],
      [{ session_id: 's', run_id: 'r' }, /not both/],
      [{ limit: '1.5' }, /limit must be a whole number/],
      [{ limit: 'ten' }, /limit must be a whole number/],
      [{ offset: '-3' }, /offset must be 0 or more/],
      [{ include_stats: 'maybe' }, /include_stats must be true or false/],
      [{ created_after: 'yesterday' }, /created_after must be an ISO 8601/],
      [{ created_after: '2026-02-01', created_before: '2026-01-01' }, /later than created_before/],
      [{ tags: 'shared' }, /tags must be key=value/],
      [{ tags: '{"a":' }, /tags must be key=value/],
      [{ tags: '{"a":{"b":1}}' }, /tags must be key=value/],
      [{ content_type: 'not a type' }, /content_type .* is not a media type/],
      [{ order_by: 'mood' }, /order_by must be one of/],
      [{ order_by: '__proto__' }, /order_by must be one of/],
      [{ order_by: 'last_access' }, /cannot order by last access/],
      [{ order: 'sideways' }, /order must be/],
      [{ cursor: 'garbage!!' }, /cursor is not one this gateway made/],
      [{ artifact_kind: 'a b' }, /artifact_kind value/],
      [{ query: 'a\u0000b' }, /query contains control characters/],
      [{ tags: 'a=\u0001b' }, /tags contain control characters/],
      [{ tags: '{"a\\u0002":"b"}' }, /tags contain control characters/],
    ];
    for (const [raw, sentence] of cases) {
      const { status, message } = refused(() => parse(raw));
      expect(status, JSON.stringify(raw)).to.equal(400);
      expect(message, JSON.stringify(raw)).to.match(sentence);
    }
  });

  it('infers the scope from the id given, reads lists with commas or pipes, lower-cases', () => {
    expect(parse({ session_id: 's' }).scope).to.equal('session');
    expect(parse({ run_id: 'r' }).scope).to.equal('run');
    expect(parse({ artifact_kind: 'Image| voice ,,AUDIO' }).artifactKinds).to.deep.equal(['image', 'voice', 'audio']);
    expect([...parse({ modality: 'audio' }).modalities!]).to.have.members(['audio', 'voice', 'music', 'sound', 'recording']);
    expect(parse({ modality: 'any' }).modalities).to.equal(null);
    expect(parse({ query: 'CaT' }).query).to.equal('cat');
    expect(parse({ created_after: '2026-01-31T12:00:00+02:00' }).createdAfter).to.equal('2026-01-31T10:00:00.000Z');
    // Whatever the server's time zone: a time without an offset is UTC.
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      expect(parse({ created_after: '2026-01-31 12:00' }).createdAfter).to.equal('2026-01-31T12:00:00.000Z');
      expect(parse({ created_after: '2026-01-31' }).createdAfter).to.equal('2026-01-31T00:00:00.000Z');
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('reads tags as key=value / key:value lists or a JSON object', () => {
    expect(parseTags('a=1, b:2\nc=x=y')).to.deep.equal({ a: '1', b: '2', c: 'x=y' });
    expect(parseTags('{"shared":"user","n":3}')).to.deep.equal({ shared: 'user', n: '3' });
  });

  it('round-trips a cursor and refuses one of another ordering', () => {
    const text = encodeCursor({ order_by: 'size_bytes', order: 'asc', value: 12, created_at: 't', id: 'x' });
    expect(decodeCursor(text, 'size_bytes', 'asc')).to.deep.include({ value: 12, created_at: 't', id: 'x' });
    expect(refused(() => decodeCursor(text, 'created_at', 'desc')).message).to.match(/was made for order_by=size_bytes&order=asc/);
    expect(decodeCursor('2026-01-01T00:00:00.000Z|abc', 'created_at', 'desc')).to.deep.include({ created_at: '2026-01-01T00:00:00.000Z', id: 'abc' });
  });
});

describe('artifact search: classification and envelope', () => {
  it('derives render kinds from the content type', () => {
    const cases: Record<string, string> = {
      'image/png': 'image', 'audio/mpeg': 'audio', 'video/mp4': 'video', 'text/x-python': 'code', 'application/javascript': 'code',
      'application/pdf': 'document', 'application/x-ndjson': 'json', 'text/html': 'html', 'text/markdown': 'markdown', 'text/csv': 'text',
      'application/yaml': 'text', 'application/zip': 'binary',
    };
    for (const [type, kind] of Object.entries(cases)) expect(renderKindOf(type), type).to.equal(kind);
  });

  it('infers the legacy semantic kind from tags and names, never from a substring of a word', () => {
    const base = { tags: {}, modality: 'audio', renderKind: 'audio', contentType: 'audio/wav', path: null };
    expect(inferSemanticKind({ ...base, filename: 'my-song.wav' })).to.equal('music');
    expect(inferSemanticKind({ ...base, filename: 'tts_output.wav' })).to.equal('voice');
    expect(inferSemanticKind({ ...base, filename: 'take.wav', tags: { task: 'transcription' } })).to.equal('transcript');
    expect(inferSemanticKind({ ...base, filename: 'invoice.wav' })).to.equal('audio');
    expect(inferSemanticKind({ ...base, filename: 'x.bin', modality: 'file', renderKind: 'binary', contentType: 'application/octet-stream' })).to.equal('artifact');
  });

  it('matches generic audio only for unclassified audio, and other for unclassified rows', () => {
    const row = (semantic_kind: string, render_kind: string, modality: string) => ({ semantic_kind, render_kind, modality });
    expect(matchesArtifactKind('audio', row('audio', 'audio', 'audio'))).to.equal(true);
    expect(matchesArtifactKind('audio', row('artifact', 'binary', 'audio'))).to.equal(true);
    expect(matchesArtifactKind('audio', row('voice', 'audio', 'audio'))).to.equal(false);
    expect(matchesArtifactKind('audio', row('music', 'audio', 'audio'))).to.equal(false);
    expect(matchesArtifactKind('voice', row('voice', 'audio', 'audio'))).to.equal(true);
    expect(matchesArtifactKind('other', row('artifact', 'binary', 'file'))).to.equal(true);
    expect(matchesArtifactKind('other', row('image', 'image', 'image'))).to.equal(false);
    expect(matchesArtifactKind('image', row('image', 'image', 'image'))).to.equal(true);
  });

  it('keeps what the record declares and leaves missing producer data missing', () => {
    const declared = normalisedFields(record({ semantic_kind: 'voice', render_kind: 'audio', modality: 'audio', content_type: 'audio/wav' }));
    expect(declared).to.include({ semantic_kind: 'voice', classification_source: 'artifact_record' });
    const env = envelopeOf(record());
    expect(env.schema).to.equal('abstractgateway.artifact_envelope.v1');
    expect(env.producer).to.deep.equal({});
    expect(env.generation).to.deep.equal({});
    expect(env.media).to.deep.equal({});
    expect(env.source_refs).to.deep.equal([]);
    expect(env.workflow_id).to.equal(null);
    expect(env.node_id).to.equal(null);
    expect(env.legacy_inferred).to.equal(true);
    expect(env.title).to.equal('blob.bin');
    expect(envelopeOf(record({ filename: '', path: null })).title).to.equal('Artifact abcdefghijkl');
  });

  it('sanitises producer links to relative gateway or client links and adds its own', () => {
    const env = envelopeOf(record({
      run_id: 'run-1',
      producer: { links: {
        trace: '/api/gateway/runs/run-1/ledger?after=3', evil: 'https://evil.example/x', proto: '//evil.example/x', js: 'javascript:alert(1)',
        climb: '/api/gateway/../admin', encoded: '/api/gateway/%2e%2e/admin', back: '/api/gateway\\..\\x', route: '#/observe/run-1', nul: '/api/gateway/a\u0000b',
      } },
    }));
    expect(env.links).to.include({ trace: '/api/gateway/runs/run-1/ledger?after=3', route: '#/observe/run-1', detail: `/api/gateway/runs/run-1/artifacts/${env.artifact_id}` });
    for (const bad of ['evil', 'proto', 'js', 'climb', 'encoded', 'back', 'nul']) expect(env.links, bad).not.to.have.property(bad);
    for (const link of Object.values(env.links)) expect(isSafeLink(link), link).to.equal(true);
    expect(env.available_actions).to.include.members(['preview', 'download', 'open_run', 'open_ledger']);
    // Ids in links are encoded, so a hostile id cannot add a path segment.
    expect(envelopeOf(record({ run_id: '../x' })).links.run).to.equal('/api/gateway/runs/..%2Fx');
  });
});

describe('artifact search: filters and facets', () => {
  it('filters on tags, content type prefixes, query over tags and names, and created bounds', () => {
    const a = searchRowOfRecord(record({ artifact_id: 'a1', content_type: 'image/png', filename: 'Cat.PNG', tags: { topic: 'pets' } }));
    const b = searchRowOfRecord(record({ artifact_id: 'b1', content_type: 'text/plain', filename: 'notes.txt', created_at: '2026-11-25T00:00:00.000Z' }));
    const pick = (raw: RawSearchQuery) => {
      const filter = rowFilter(parse(raw));
      return [a, b].filter(({ row, text }) => filter.matches(row, filter.needsText ? text : null)).map(({ row }) => row.id);
    };
    expect(pick({ content_type: 'image/*' })).to.deep.equal(['a1']);
    expect(pick({ content_type: 'TEXT/PLAIN' })).to.deep.equal(['b1']);
    expect(pick({ tags: 'topic=pets' })).to.deep.equal(['a1']);
    expect(pick({ tags: 'topic=Pets' })).to.deep.equal([]);
    expect(pick({ query: 'cat.png' })).to.deep.equal(['a1']);
    expect(pick({ query: 'PETS' })).to.deep.equal(['a1']);
    expect(pick({ created_after: '2026-11-24T12:00:00Z' })).to.deep.equal(['b1']);
    expect(pick({ created_before: '2026-11-24T10:00:00.000Z' })).to.deep.equal(['a1']);
    expect(pick({ artifact_kind: 'image,text' })).to.deep.equal(['a1', 'b1']);
  });

  it('counts facets and bytes exactly, empty values as (none)', () => {
    const counter = new FacetCounter();
    counter.add(searchRowOfRecord(record({ content_type: 'image/png', size_bytes: 5, workflow_id: 'w' })).row);
    counter.add(searchRowOfRecord(record({ content_type: 'image/png', size_bytes: 7 })).row);
    counter.add(searchRowOfRecord(record({ content_type: 'text/plain', size_bytes: -1 })).row);
    expect(counter.total).to.equal(3);
    expect(counter.totalBytes).to.equal(12);
    const facets = counter.facets();
    expect(facets.content_type).to.deep.equal({ 'image/png': 2, 'text/plain': 1 });
    expect(facets.workflow_id).to.deep.equal({ '(none)': 2, w: 1 });
    expect(Object.keys(facets)).to.deep.equal(['semantic_kind', 'render_kind', 'modality', 'content_type', 'workflow_id', 'node_id', 'run_id']);
  });
});

describe('artifact search: top rows', () => {
  it('keeps exactly the first k of a stream in order, ties included', () => {
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (const n of [0, 1, 5, 100, 1000]) {
      const values = Array.from({ length: n }, () => Math.floor(random() * 50));
      for (const k of [0, 1, 3, 51, 2000]) {
        for (const desc of [false, true]) {
          const top = new TopRows<number>(k, (a, b) => (desc ? a > b : a < b));
          for (const v of values) top.offer(v);
          const expected = [...values].sort((a, b) => (desc ? b - a : a - b)).slice(0, k);
          expect(top.sorted(), `n=${n} k=${k} desc=${desc}`).to.deep.equal(expected);
        }
      }
    }
  });
});

describe('files: families, extensions, roots', () => {
  it('guesses families from names only', () => {
    const cases: Record<string, string> = {
      'a.PNG': 'image', 'b.mp4': 'video', 'c.mp3': 'audio', 'd.pdf': 'document', 'e.txt': 'text', 'f.ts': 'code', 'Dockerfile': 'code',
      'g.md': 'code', 'h.jsonl': 'json', 'i.tar': 'archive', 'j.tgz': 'archive', 'k.weird': 'other', noext: 'other',
    };
    for (const [name, family] of Object.entries(cases)) expect(familyOf(name), name).to.equal(family);
  });

  it('reads extensions as a comma or newline list without dots', () => {
    expect([...parseExtensions('.PNG, jpg\n..gif\r\n,')]).to.deep.equal(['png', 'jpg', 'gif']);
  });

  it('names mounts by slug, digest-suffixed on a clash', () => {
    expect(slugOf('/srv/My Photos!')).to.equal('my-photos');
    expect(slugOf('/srv/!!!')).to.equal('mount');
    const aliases = aliasesOf(['/a/data', '/b/data', '/c/other']);
    expect(aliases.get('/c/other')).to.equal('other');
    expect(aliases.get('/a/data')).to.match(/^data_[0-9a-f]{8}$/);
    expect(aliases.get('/b/data')).to.match(/^data_[0-9a-f]{8}$/);
    expect(aliases.get('/a/data')).not.to.equal(aliases.get('/b/data'));
  });

  it('judges a path by the longest containing row, then the posture', () => {
    const reach = reachOf({ posture: 'allowed_only', default_mode: null, folders: [{ path: '/w', mode: 'rw' }, { path: '/w/secret', mode: 'deny' }, { path: 'relative', mode: 'rw' }] });
    expect(modeOf(reach, '/w/a')).to.equal('rw');
    expect(modeOf(reach, '/w/secret/x')).to.equal('deny');
    expect(modeOf(reach, '/w-other')).to.equal('deny');
    expect(modeOf(reachOf({ posture: 'any_except_denied', default_mode: 'ro', folders: [] }), '/x')).to.equal('ro');
    expect(modeOf(reachOf(null), '/x')).to.equal('deny');
  });

  it('resolves paths under a root and refuses those outside', () => {
    const roots = { main: { real: '/home/u', alias: null }, mounts: [{ real: '/srv/data', alias: 'data' }] };
    expect(locate(roots, 'docs/a').lexical).to.equal('/home/u/docs/a');
    expect(locate(roots, '@data\\x').lexical).to.equal('/srv/data/x');
    expect(locate(roots, '/srv/data/y').root.alias).to.equal('data');
    expect(refused(() => locate(roots, '../etc')).status).to.equal(403);
    expect(refused(() => locate(roots, 'data/../../etc')).status).to.equal(403);
    expect(refused(() => locate(roots, '/etc/passwd')).status).to.equal(403);
    expect(refused(() => locate(roots, 'a\u0000b')).status).to.equal(400);
  });

  it('never lists a folder swapped for a link between the check and the read', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'keel-files-swap-')));
    const secret = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'keel-files-secret-')));
    try {
      mkdirSync(path.join(root, 'sub'));
      writeFileSync(path.join(root, 'sub', 'plain.txt'), 'x');
      writeFileSync(path.join(secret, 'id_rsa'), 'KEY');
      // Inside the root, a link to the secret folder would be followed by a plain readdir.
      symlinkSync(secret, path.join(root, 'inside-link'));
      const protectedReal = (real: string) => real.startsWith(secret);
      let swapped = false;
      // The judge of entries swaps `sub` for a link to the protected folder right after approving it.
      const visible = (real: string) => {
        if (real === path.join(root, 'sub') && !swapped) {
          swapped = true;
          renameSync(path.join(root, 'sub'), path.join(root, 'sub-old'));
          symlinkSync(path.join(root, 'inside-link'), path.join(root, 'sub'));
        }
        return !protectedReal(real);
      };
      const mainRoot = { real: root, alias: null };
      const request = { recursive: true, includeDirectories: true, families: null, extensions: null, query: null, limit: 100, maxDepth: 10 };
      const bounds = { maxEntriesScanned: 1000, deadline: Date.now() + 60_000, now: Date.now };
      const listing = await listFolder(mainRoot, root, await openListed(mainRoot, root, visible, 'root'), request, bounds, visible);
      expect(swapped).to.equal(true);
      expect(JSON.stringify(listing.items)).not.to.include('id_rsa');
      expect(listing.hidden.blocked).to.be.at.least(1);
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(secret, { recursive: true, force: true });
    }
  });

  it('stops at its time budget with truncated and a sentence', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'keel-files-budget-')));
    try {
      for (const folder of ['a', 'b', 'c']) {
        mkdirSync(path.join(root, folder));
        writeFileSync(path.join(root, folder, 'f.txt'), 'x');
      }
      const mainRoot = { real: root, alias: null };
      const visible = () => true;
      const request = { recursive: true, includeDirectories: true, families: null, extensions: null, query: null, limit: 100, maxDepth: 10 };
      // A clock that has run past the deadline once the first folder was read.
      let reads = 0;
      const bounds = { maxEntriesScanned: 1000, deadline: 1, now: () => (reads++ < 4 ? 0 : 2) };
      const listing = await listFolder(mainRoot, root, await openListed(mainRoot, root, visible, 'root'), request, bounds, visible);
      expect(listing.truncated).to.equal(true);
      expect(listing.warnings.join(' ')).to.match(/stopped at its time budget/);
      expect(listing.items.map((e) => e.path)).to.include.members(['a', 'b', 'c']);
      expect(listing.items.length).to.be.below(6);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
