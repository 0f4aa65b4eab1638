import { expect } from 'chai';
import { artifactsGateway, type UploadAnswer } from './helpers/artifacts.js';

/**
 * `artifact_not_in_session` (seed §7, reference §2.3): a run of one session may not use a file
 * uploaded into another, in any shape the reference can take in input_data; its own session's files
 * and the owner's `shared: user` files pass; a run's output passes to another session only when the
 * reference names its producing run.
 */

interface Refusal {
  detail: { reason_code: string; message: string; path: string; artifact_id: string; owner_run_id: string | null; session_id: string | null };
}

describe('artifacts: artifact_not_in_session at run start', function () {
  this.timeout(180_000);
  const gw = artifactsGateway();
  let s1: UploadAnswer;
  let sharedUpload: UploadAnswer;
  before(async () => {
    await gw.boot();
    s1 = await gw.put(gw.bob, 's1', 'in-s1.txt', 'belongs to s1');
    sharedUpload = await gw.put(gw.bob, 's1', 'shared.txt', 'shared', [{ name: 'tags', value: '{"shared":"USER"}' }]);
  });
  after(() => gw.stop());

  const id = () => s1.artifact.artifact_id;
  const shapes = (): Array<[string, Record<string, unknown>, string]> => [
    ['context.attachments', { context: { attachments: [s1.artifact] } }, '$.context.attachments[0]'],
    ['context.media', { context: { media: [{ $artifact: id() }] } }, '$.context.media[0]'],
    ['attachments', { attachments: [{ artifact_id: id() }] }, '$.attachments[0]'],
    ['media', { media: [{ $artifact: id(), content_type: 'text/plain' }] }, '$.media[0]'],
    ['bare id in a list', { attachments: ['not-an-artifact', id()] }, '$.attachments[1]'],
    ['bare id as the value', { context: { media: id() } }, '$.context.media'],
    ['id with its owner run_id', { attachments: [{ $artifact: id(), run_id: 'session_memory_s1' }] }, '$.attachments[0]'],
    ['nested pin', { pins: { deep: [{ x: { artifact_id: id() } }] } }, '$.pins.deep[0].x'],
  ];

  it('refuses a file of another session in every shape, naming where it is', async () => {
    for (const [shape, input, where] of shapes()) {
      const res = await gw.start(gw.bob, { session_id: 's2', input_data: input });
      expect(res.statusCode, `${shape}: ${res.body}`).to.equal(400);
      const { detail } = res.json<Refusal>();
      expect(detail, shape).to.include({ reason_code: 'artifact_not_in_session', path: where, artifact_id: id(), owner_run_id: 'session_memory_s1', session_id: 's2' });
      expect(detail.message, shape).to.equal(`Artifact ref at \`${where}\` is not visible to session \`s2\`: \`${id()}\` belongs to \`session_memory_s1\`. Attach the file in this conversation.`);
    }
  });

  it('finds a reference hidden behind a large amount of filler', async () => {
    const filler = Array.from({ length: 150_000 }, () => 0);
    const res = await gw.start(gw.bob, { session_id: 's2', input_data: { filler, attachments: [{ $artifact: id() }] } });
    expect(res.statusCode).to.equal(400);
    expect(res.json<Refusal>().detail).to.include({ reason_code: 'artifact_not_in_session', path: '$.attachments[0]' });
  });

  it('lets the same session use its files in every shape, and every session use a shared one', async () => {
    for (const [shape, input] of shapes()) {
      const res = await gw.start(gw.bob, { session_id: 's1', input_data: input });
      expect(res.statusCode, `${shape}: ${res.body}`).to.equal(200);
    }
    const shared = await gw.start(gw.bob, { session_id: 's9', input_data: { context: { attachments: [sharedUpload.artifact] } } });
    expect(shared.statusCode, shared.body).to.equal(200);
  });

  it("lets a run without a session use its own account's uploads (only starts with a session are checked for them)", async () => {
    const res = await gw.start(gw.bob, { input_data: { context: { attachments: [s1.artifact] } } });
    expect(res.statusCode, res.body).to.equal(200);
  });

  it('leaves unknown ids and strings that are no artifact alone', async () => {
    const res = await gw.start(gw.bob, { session_id: 's2', input_data: { attachments: ['https://example.com/x.png', 'nope'], context: { media: [{ $artifact: 'missing' }] } } });
    expect(res.statusCode, res.body).to.equal(200);
  });

  it("never lets eve's run use bob's id: it does not resolve in her plane", async () => {
    // The id is not eve's, so nothing of bob's is reachable by it; a run of hers may start.
    const res = await gw.start(gw.eve, { session_id: 's1', input_data: { attachments: [{ $artifact: id() }] } });
    expect(res.statusCode, res.body).to.equal(200);
    expect((await gw.get(gw.eve, `/api/gateway/runs/${res.json<{ run_id: string }>().run_id}/artifacts/${id()}/content`)).statusCode).to.equal(404);
  });
});
