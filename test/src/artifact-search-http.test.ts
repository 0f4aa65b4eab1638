import { expect } from 'chai';
import { artifactsGateway, type UploadAnswer } from './helpers/artifacts.js';

/**
 * `GET /artifacts/search` and `/artifacts/stats` through the front door (seed §4.6, reference
 * §2.5–2.6): artifacts made by the real upload route, every filter, both pagings, exact stats, the
 * envelope, the refusals, and a hostile second account that tries every parameter to reach the
 * first account's rows.
 */

interface Row {
  artifact_id: string;
  run_id: string | null;
  session_id: string | null;
  content_type: string;
  semantic_kind: string;
  render_kind: string;
  modality: string;
  tags: Record<string, string>;
  created_at: string;
  links: Record<string, string>;
  artifact_envelope_v1: Record<string, unknown> & { schema: string; links: Record<string, string>; producer: unknown };
}
interface Page {
  items: Row[];
  total: number;
  offset: number;
  limit: number | null;
  has_more: boolean;
  next_cursor: string | null;
  facets: Record<string, Record<string, number>>;
  stats: { total?: number; total_bytes?: number; byte_total?: number; exact?: boolean; facets?: Record<string, Record<string, number>> };
  scope: string;
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');

describe('artifact search: through HTTP', function () {
  this.timeout(180_000);
  const gw = artifactsGateway();
  const bob: Record<string, UploadAnswer> = {};
  let eveOwn: UploadAnswer;
  let eveShared: UploadAnswer;

  const search = async (token: string, query: string, status = 200) => {
    const res = await gw.get(token, `/api/gateway/artifacts/search${query ? `?${query}` : ''}`);
    expect(res.statusCode, `${query}: ${res.body}`).to.equal(status);
    return res.json<Page>();
  };
  const ids = (page: Page) => page.items.map((r) => r.artifact_id);

  before(async () => {
    await gw.boot();
    const put = async (key: string, session: string, filename: string, bytes: Buffer | string, type?: string, tags?: Record<string, string>) => {
      bob[key] = await gw.put(gw.bob, session, filename, bytes, tags ? [{ name: 'tags', value: JSON.stringify(tags) }] : [], type);
    };
    await put('cat', 'trip', 'Cat.png', PNG, 'image/png', { topic: 'pets' });
    await put('notes', 'trip', 'notes.md', '# notes about the trip', 'text/markdown');
    await put('song', 'music', 'my-song.wav', Buffer.alloc(100, 1), 'audio/wav');
    await put('memo', 'music', 'take1.wav', Buffer.alloc(50, 2), 'audio/wav');
    await put('shared', 'music', 'logo.png', PNG, 'image/png', { shared: 'user' });
    await put('data', 'work', 'table.json', '{"a":1}', 'application/json', { topic: 'work' });
    eveOwn = await gw.put(gw.eve, 'trip', 'eve-secret.png', PNG, [{ name: 'tags', value: '{"topic":"pets"}' }], 'image/png');
    eveShared = await gw.put(gw.eve, 'eve-session', 'eve-shared.txt', 'eve shares this', [{ name: 'tags', value: '{"shared":"user"}' }], 'text/plain');
  });
  after(() => gw.stop());

  it('answers every own artifact, newest first, each with its normalised envelope and relative links', async () => {
    const page = await search(gw.bob, '');
    expect(page.total).to.equal(6);
    expect(page.limit).to.equal(500);
    expect(ids(page)).to.deep.equal(['data', 'shared', 'memo', 'song', 'notes', 'cat'].map((k) => bob[k]!.artifact.artifact_id));
    for (const row of page.items) {
      const env = row.artifact_envelope_v1;
      expect(env.schema).to.equal('abstractgateway.artifact_envelope.v1');
      expect(env.artifact_id).to.equal(row.artifact_id);
      expect(env.producer, 'no producer data is invented for an upload').to.deep.equal({});
      expect(env.workflow_id).to.equal(null);
      for (const link of Object.values(env.links)) expect(link).to.match(/^(\/api\/gateway\/|#\/)/);
    }
    const song = page.items.find((r) => r.artifact_id === bob.song!.artifact.artifact_id)!;
    expect(song).to.include({ semantic_kind: 'music', render_kind: 'audio', modality: 'audio', run_id: 'session_memory_music' });
    // The links work: the content link answers the bytes.
    const content = await gw.get(gw.bob, song.links.content!);
    expect(content.statusCode).to.equal(200);
    expect(content.rawPayload.length).to.equal(100);
  });

  it('filters by artifact_kind (generic audio means unclassified audio), kinds, modality and content type', async () => {
    expect(ids(await search(gw.bob, 'artifact_kind=audio'))).to.deep.equal([bob.memo!.artifact.artifact_id]);
    expect(ids(await search(gw.bob, 'artifact_kind=music'))).to.deep.equal([bob.song!.artifact.artifact_id]);
    expect((await search(gw.bob, 'artifact_kind=image,json')).total).to.equal(3);
    expect((await search(gw.bob, 'semantic_kind=image|markdown')).total).to.equal(3);
    expect((await search(gw.bob, 'render_kind=audio')).total).to.equal(2);
    expect((await search(gw.bob, 'modality=audio')).total).to.equal(2);
    expect((await search(gw.bob, 'modality=any')).total).to.equal(6);
    expect((await search(gw.bob, 'content_type=image/*')).total).to.equal(2);
    expect((await search(gw.bob, 'content_type=IMAGE/PNG')).total).to.equal(2);
  });

  it('filters by tags, a case-insensitive query and inclusive created bounds', async () => {
    expect(ids(await search(gw.bob, 'tags=topic=pets'))).to.deep.equal([bob.cat!.artifact.artifact_id]);
    expect(ids(await search(gw.bob, `tags=${encodeURIComponent('{"topic":"work"}')}`))).to.deep.equal([bob.data!.artifact.artifact_id]);
    expect(ids(await search(gw.bob, 'query=CAT.PNG'))).to.deep.equal([bob.cat!.artifact.artifact_id]);
    expect(ids(await search(gw.bob, `query=${bob.song!.artifact.sha256.slice(0, 20).toUpperCase()}`))).to.deep.equal([bob.song!.artifact.artifact_id]);
    const notesAt = (await search(gw.bob, 'query=notes.md')).items[0]!.created_at;
    const after = await search(gw.bob, `created_after=${encodeURIComponent(notesAt)}`);
    expect(after.total).to.equal(5);
    const before = await search(gw.bob, `created_before=${encodeURIComponent(notesAt)}`);
    expect(ids(before)).to.deep.equal([bob.notes!.artifact.artifact_id, bob.cat!.artifact.artifact_id]);
  });

  it('narrows to a session (its own and the shared ones) and to a run reach', async () => {
    const trip = await search(gw.bob, 'scope=session&session_id=trip');
    expect(ids(trip)).to.have.members([bob.cat!.artifact.artifact_id, bob.notes!.artifact.artifact_id, bob.shared!.artifact.artifact_id]);
    expect(trip.scope).to.equal('session');
    const memory = await search(gw.bob, 'scope=run&run_id=session_memory_work');
    expect(ids(memory)).to.have.members([bob.data!.artifact.artifact_id, bob.shared!.artifact.artifact_id]);
    const runId = await gw.run(gw.bob, { session_id: 'trip' });
    const run = await search(gw.bob, `run_id=${runId}`);
    expect(ids(run)).to.have.members(ids(trip));
  });

  it('gives exact stats and facets independent of limit, and pages by cursor and offset without gaps', async () => {
    const page = await search(gw.bob, 'include_stats=true&limit=1');
    expect(page.items).to.have.length(1);
    expect(page.total).to.equal(6);
    expect(page.has_more).to.equal(true);
    expect(page.stats).to.include({ total: 6, exact: true });
    const bytes = Object.values(bob).reduce((sum, a) => sum + a.metadata.size_bytes, 0);
    expect(page.stats.total_bytes).to.equal(bytes);
    expect(page.stats.byte_total).to.equal(bytes);
    expect(page.facets.content_type).to.deep.equal({ 'audio/wav': 2, 'image/png': 2, 'application/json': 1, 'text/markdown': 1 });
    expect(page.facets.run_id!['session_memory_music']).to.equal(3);
    expect(page.stats.facets).to.deep.equal(page.facets);

    const all = ids(await search(gw.bob, ''));
    for (const order of ['', '&order=asc', '&order_by=size&order=desc', '&order_by=type']) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const next: Page = await search(gw.bob, `limit=2${order}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(next.total).to.equal(6);
        seen.push(...ids(next));
        cursor = next.next_cursor;
        expect(cursor === null).to.equal(!next.has_more);
      } while (cursor);
      expect(seen, order).to.have.members(all);
      expect(new Set(seen).size, order).to.equal(6);
    }
    const sizes = (await search(gw.bob, 'order_by=size&order=asc')).items.map((r) => (r as unknown as { size_bytes: number }).size_bytes);
    expect(sizes).to.deep.equal([...sizes].sort((a, b) => a - b));
    expect(ids(await search(gw.bob, 'offset=4'))).to.deep.equal(all.slice(4));
    expect(ids(await search(gw.bob, 'offset=1&limit=2'))).to.deep.equal(all.slice(1, 3));
    const stats = (await gw.get(gw.bob, '/api/gateway/artifacts/stats?modality=image')).json<{ ok: boolean; total: number; default_page_size: number }>();
    expect(stats).to.include({ ok: true, total: 2, default_page_size: 500 });
  });

  it('refuses bad parameters with 400 and a sentence in the gateway shape', async () => {
    for (const query of ['scope=mine', 'scope=session', 'limit=abc', 'offset=-1', 'tags=oops', 'created_after=soon', 'cursor=xyz', 'order=up', 'colour=red', 'include_stats=perhaps', 'content_type=png']) {
      const res = await gw.get(gw.bob, `/api/gateway/artifacts/search?${query}`);
      expect(res.statusCode, query).to.equal(400);
      const detail = res.json<{ detail: { reason_code: string; message: string } }>().detail;
      expect(detail.message, query).to.match(/\.$/);
      expect(detail.reason_code, query).to.be.a('string');
    }
    expect((await gw.get(gw.bob, '/api/gateway/artifacts/search?limit=1&limit=2')).statusCode).to.equal(400);
    expect((await gw.get('', '/api/gateway/artifacts/search')).statusCode).to.equal(401);
  });

  it('lets only an admin lift the page bound with debug_unlimited', async () => {
    const res = await gw.get(gw.bob, '/api/gateway/artifacts/search?limit=0&debug_unlimited=true');
    expect(res.statusCode).to.equal(403);
    expect(res.json<{ detail: string }>().detail).to.match(/debug_unlimited is for admins/);
    const page = await search(gw.admin, 'limit=0&debug_unlimited=true');
    expect(page.limit).to.equal(null);
    expect(page.has_more).to.equal(false);
  });

  it("never reaches another account's artifacts, whatever the parameters", async () => {
    const foreign = new Set([eveOwn.artifact.artifact_id, eveShared.artifact.artifact_id]);
    const eveRun = await gw.run(gw.eve, { session_id: 'trip' });
    const attempts = [
      '', 'include_stats=true', 'limit=0', `query=${eveOwn.artifact.artifact_id}`, `query=${eveOwn.artifact.sha256}`, 'query=eve', 'tags=topic=pets',
      'tags=shared=user', 'scope=session&session_id=trip', 'content_type=text/plain', 'order=asc', 'order_by=run',
      `cursor=${encodeURIComponent(`9999-01-01T00:00:00.000Z|${eveOwn.artifact.artifact_id}`)}`,
    ];
    for (const query of attempts) {
      const page = await search(gw.bob, query);
      for (const id of ids(page)) expect(foreign.has(id), query).to.equal(false);
      for (const count of Object.values(page.facets.run_id ?? {})) expect(count).to.be.at.most(6);
    }
    // Eve's session, her memory run and her run are unknown to bob (404, as for ids that do not exist).
    for (const query of ['scope=session&session_id=eve-session', 'scope=run&run_id=session_memory_eve-session', `scope=run&run_id=${eveRun}`, 'scope=run&run_id=nope']) {
      const res = await gw.get(gw.bob, `/api/gateway/artifacts/search?${query}`);
      expect(res.statusCode, query).to.equal(404);
      expect(res.body).not.to.include(eveOwn.artifact.artifact_id);
    }
    // Her shared artifact is shared with her own sessions only.
    expect(ids(await search(gw.bob, 'scope=session&session_id=trip'))).not.to.include(eveShared.artifact.artifact_id);
    // An admin searches its own account only, even under a run of bob's it may otherwise open.
    const bobRun = await gw.run(gw.bob, { session_id: 'work' });
    expect((await gw.get(gw.admin, `/api/gateway/artifacts/search?run_id=${bobRun}`)).statusCode).to.equal(404);
    const adminAll = await search(gw.admin, 'include_stats=true');
    expect(adminAll.total).to.equal(0);
    expect((await gw.get(gw.admin, '/api/gateway/artifacts/search?scope=session&session_id=trip')).statusCode).to.equal(404);
    // The stats route keeps to the same plane.
    expect((await gw.get(gw.bob, '/api/gateway/artifacts/stats?scope=session&session_id=eve-session')).statusCode).to.equal(404);
    const bobStats = (await gw.get(gw.bob, '/api/gateway/artifacts/stats')).json<{ total: number; facets: { run_id: Record<string, number> } }>();
    expect(bobStats.total).to.equal(6);
    expect(Object.keys(bobStats.facets.run_id)).not.to.include('session_memory_eve-session');
    // Eve sees her two and nothing of bob's.
    const eve = await search(gw.eve, 'include_stats=true');
    expect(ids(eve)).to.have.members([...foreign]);
    expect(eve.stats.total).to.equal(2);
  });
});
