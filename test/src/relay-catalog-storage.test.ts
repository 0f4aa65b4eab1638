import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { relayPlugin } from '@keel/plugin-relay';
import { OPEN_GATE, relayTokenOf } from './helpers/relay-gate.js';
import { form, type Part } from './helpers/artifacts.js';

/**
 * `/v1/files` and `/v1/conversations` of the relay (reference §1.12) through HTTP: upload, list,
 * record, content and delete with every limit (413s) and hostile ids and names; conversations
 * create, read, update, delete; 501 when the hosted runtime is off.
 */

interface FileRecord {
  id: string;
  object: string;
  bytes: number;
  created_at: number;
  filename: string;
  purpose: string;
  status: string;
  content_type: string;
}

const errorOf = (res: { json<T>(): T }) => res.json<{ error: { message: string; code: string | null; type: string }; detail: string }>();

describe('relay catalog: local files', function () {
  this.timeout(120_000);
  let k: TestKernel;
  const filesDir = () => path.join(k.dataDir, 'plugins', 'relay', 'files');
  const tmpFiles = () => (existsSync(path.join(filesDir(), 'tmp')) ? readdirSync(path.join(filesDir(), 'tmp')) : []);
  const upload = (parts: Part[], query = '', token: string | null = relayTokenOf(k)) => {
    const body = form(parts);
    return k.inject({ method: 'POST', url: `/v1/files${query}`, token: token ?? undefined, payload: body.payload, headers: body.headers });
  };
  const put = async (filename: string, bytes: string | Buffer, contentType?: string, query = '') => {
    const res = await upload([{ name: 'file', filename, contentType, bytes: Buffer.from(bytes) }], query);
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<FileRecord>();
  };
  const remove = (id: string) => k.inject({ method: 'DELETE', url: `/v1/files/${id}`, token: relayTokenOf(k) });
  const removeAll = async () => {
    for (const f of (await k.inject({ url: '/v1/files', token: relayTokenOf(k) })).json<{ data: FileRecord[] }>().data) expect((await remove(f.id)).statusCode).to.equal(200);
  };

  before(async () => {
    k = await createTestKernel({ plugins: [{ plugin: relayPlugin, config: { gate: OPEN_GATE, hosted: { accounts: [] }, uploads: { maxUploadBytes: 1024, maxTotalUploadBytes: 2048, maxFiles: 3 } } }] });
  });
  after(() => k?.stop());
  afterEach(removeAll);

  it('stores an upload and answers its record; the bytes are on disk under its id', async () => {
    const record = await put('notes.txt', 'hello files', 'text/plain');
    expect(record.id).to.match(/^file_[0-9a-f]{32}$/);
    expect(record).to.deep.include({ object: 'file', bytes: 11, filename: 'notes.txt', purpose: 'assistants', status: 'processed', content_type: 'text/plain' });
    expect(record.created_at).to.be.a('number').greaterThan(1_700_000_000);
    expect(readFileSync(path.join(filesDir(), record.id), 'utf8')).to.equal('hello files');
    expect(tmpFiles()).to.deep.equal([]);
  });

  it('takes purpose from the query, else from the form field (as the official client sends it)', async () => {
    expect((await put('a.txt', 'a', undefined, '?purpose=vision')).purpose).to.equal('vision');
    const res = await upload([{ name: 'purpose', value: 'user_data' }, { name: 'file', filename: 'b.txt', bytes: Buffer.from('b') }]);
    expect(res.json<FileRecord>().purpose).to.equal('user_data');
    const bad = await upload([{ name: 'file', filename: 'c.txt', bytes: Buffer.from('c') }], '?purpose=%3Cscript%3E');
    expect(bad.statusCode).to.equal(400);
    expect(errorOf(bad).error.code).to.equal('invalid_purpose');
    expect(tmpFiles()).to.deep.equal([]);
  });

  it('lists, reads and deletes files; a deleted id is 404 everywhere', async () => {
    const one = await put('one.json', '{"a":1}', 'application/json');
    const two = await put('two.bin', Buffer.from([0, 1, 2]), 'application/octet-stream');
    const list = await k.inject({ url: '/v1/files', token: relayTokenOf(k) });
    expect(list.json<{ object: string; data: FileRecord[] }>()).to.deep.equal({ object: 'list', data: [one, two] });
    expect((await k.inject({ url: `/v1/files/${one.id}`, token: relayTokenOf(k) })).json()).to.deep.equal(one);
    const deleted = await remove(one.id);
    expect(deleted.json()).to.deep.equal({ id: one.id, object: 'file', deleted: true });
    expect(existsSync(path.join(filesDir(), one.id))).to.equal(false);
    for (const url of [`/v1/files/${one.id}`, `/v1/files/${one.id}/content`]) {
      const res = await k.inject({ url, token: relayTokenOf(k) });
      expect(res.statusCode).to.equal(404);
      expect(errorOf(res).error).to.include({ type: 'not_found_error', code: 'file_not_found' });
    }
    expect((await remove(one.id)).statusCode).to.equal(404);
  });

  it('serves content with the stored type, as an attachment, nosniff and sandboxed', async () => {
    const record = await put('page.html', '<script>alert(1)</script>', 'text/html');
    const res = await k.inject({ url: `/v1/files/${record.id}/content`, token: relayTokenOf(k) });
    expect(res.statusCode).to.equal(200);
    expect(res.body).to.equal('<script>alert(1)</script>');
    expect(res.headers['content-type']).to.match(/^text\/html/);
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.headers['content-disposition']).to.match(/^attachment; filename="?page\.html"?/);
    expect(res.headers['content-security-policy']).to.equal('sandbox');
  });

  it('guesses the type from the name when the part sends none or a generic one, and refuses a malformed type', async () => {
    expect((await put('data.json', '{}')).content_type).to.equal('application/json');
    expect((await put('pic.png', 'x', 'application/octet-stream')).content_type).to.equal('image/png');
    await removeAll();
    expect((await put('odd', 'x', 'not a type')).content_type).to.match(/^[a-z]+\/[a-z0-9.+-]+$/);
    expect((await put('odd.dat', 'x', 'Text/HTML; charset=utf-8')).content_type).to.equal('text/html');
  });

  it('cleans hostile filenames: no folders, control or direction characters, at most 255 characters', async () => {
    expect((await put('../../etc/passwd', 'x')).filename).to.equal('passwd');
    expect((await put('..\\..\\win.ini', 'x')).filename).to.equal('win.ini');
    expect((await put('evil\u202Etxt.exe', 'x')).filename).to.equal('eviltxt.exe');
    await removeAll();
    expect((await put('..', 'x')).filename).to.equal('upload');
    const long = await put(`${'a'.repeat(400)}.txt`, 'x');
    expect([...long.filename]).to.have.length(255);
    await removeAll();
    const spaced = await put('  report\t final.pdf  ', 'x');
    expect(spaced.filename).to.equal('report final.pdf');
    const res = await k.inject({ url: `/v1/files/${spaced.id}/content`, token: relayTokenOf(k) });
    expect(res.headers['content-disposition']).to.match(/^attachment; filename="report final\.pdf"$/);
  });

  it('answers 404 for hostile and unknown ids without touching the store', async () => {
    for (const id of ['file_' + '0'.repeat(32), 'file_XYZ', '..%2F..%2Fetc%2Fpasswd', 'tmp', 'file_' + 'a'.repeat(31) + 'G', '%00', 'x'.repeat(300)]) {
      for (const [method, suffix] of [['GET', ''], ['GET', '/content'], ['DELETE', '']] as const) {
        const res = await k.inject({ method, url: `/v1/files/${id}${suffix}`, token: relayTokenOf(k) });
        expect(res.statusCode, `${method} ${id}${suffix}: ${res.body}`).to.be.oneOf([404, 400]);
        expect(res.body).to.not.match(/ENOENT|stack|\/tmp\//);
      }
    }
    const res = await k.inject({ url: `/v1/files/file_${'0'.repeat(32)}`, token: relayTokenOf(k) });
    expect(res.statusCode).to.equal(404);
  });

  it('refuses a file over uploads.maxUploadBytes with 413 and keeps no byte of it', async () => {
    const res = await upload([{ name: 'file', filename: 'big.bin', bytes: Buffer.alloc(1025, 1) }]);
    expect(res.statusCode).to.equal(413);
    expect(errorOf(res).error.code).to.equal('file_too_large');
    expect(errorOf(res).error.message).to.match(/uploads\.maxUploadBytes/);
    expect(tmpFiles()).to.deep.equal([]);
    expect(readdirSync(filesDir()).filter((n) => n !== 'tmp')).to.deep.equal([]);
    expect((await put('fits.bin', Buffer.alloc(1024, 1))).bytes).to.equal(1024);
  });

  it('refuses a file that would pass uploads.maxTotalUploadBytes with 413; deleting makes room again', async () => {
    const first = await put('a.bin', Buffer.alloc(1000, 1));
    await put('b.bin', Buffer.alloc(1000, 2));
    const res = await upload([{ name: 'file', filename: 'c.bin', bytes: Buffer.alloc(100, 3) }]);
    expect(res.statusCode).to.equal(413);
    expect(errorOf(res).error.code).to.equal('storage_full');
    expect(errorOf(res).error.message).to.match(/uploads\.maxTotalUploadBytes/);
    expect(tmpFiles()).to.deep.equal([]);
    await remove(first.id);
    expect((await put('c.bin', Buffer.alloc(100, 3))).bytes).to.equal(100);
  });

  it('refuses concurrent uploads that together would pass the total budget', async () => {
    const answers = await Promise.all(Array.from({ length: 3 }, (_, i) => upload([{ name: 'file', filename: `p${i}.bin`, bytes: Buffer.alloc(900, i) }])));
    expect(answers.map((r) => r.statusCode).sort()).to.deep.equal([200, 200, 413]);
    expect(tmpFiles()).to.deep.equal([]);
  });

  it('refuses a file past uploads.maxFiles with 413', async () => {
    for (const name of ['1', '2', '3']) await put(`${name}.txt`, name);
    const res = await upload([{ name: 'file', filename: '4.txt', bytes: Buffer.from('4') }]);
    expect(res.statusCode).to.equal(413);
    expect(errorOf(res).error.code).to.equal('too_many_files');
    expect(tmpFiles()).to.deep.equal([]);
  });

  it('refuses uploads without a file part, with a text value as the file, or with another file field (400)', async () => {
    const none = await upload([{ name: 'purpose', value: 'assistants' }]);
    expect(none.statusCode).to.equal(400);
    expect(errorOf(none).error.code).to.equal('missing_file');
    const text = await upload([{ name: 'file', value: 'not a file' }]);
    expect(text.statusCode).to.equal(400);
    const other = await upload([{ name: 'attachment', filename: 'a.txt', bytes: Buffer.from('a') }]);
    expect(other.statusCode).to.equal(400);
    const longField = await upload([{ name: 'purpose', value: 'x'.repeat(5000) }, { name: 'file', filename: 'a.txt', bytes: Buffer.from('a') }]);
    expect(longField.statusCode).to.equal(400);
    expect(errorOf(longField).error.code).to.equal('field_too_large');
    const twoFiles = await upload([{ name: 'file', filename: 'a.txt', bytes: Buffer.from('a') }, { name: 'file', filename: 'b.txt', bytes: Buffer.from('b') }]);
    expect(twoFiles.statusCode).to.equal(400);
    expect((await k.inject({ url: '/v1/files', token: relayTokenOf(k) })).json<{ data: unknown[] }>().data).to.deep.equal([]);
    const notMultipart = await k.inject({ method: 'POST', url: '/v1/files', token: relayTokenOf(k), payload: { file: 'x' } });
    expect(notMultipart.statusCode).to.equal(400);
    expect(tmpFiles()).to.deep.equal([]);
  });

  it('answers GET /v1/models with 503 no_hosted_accounts when no account is configured and no client model exists', async () => {
    const res = await k.inject({ url: '/v1/models', token: relayTokenOf(k) });
    expect(res.statusCode).to.equal(503);
    expect(errorOf(res).error.code).to.equal('no_hosted_accounts');
    expect(errorOf(res).error.message).to.match(/hosted\.accounts/);
  });

  it('refuses every files route without a token', async () => {
    expect((await upload([{ name: 'file', filename: 'a.txt', bytes: Buffer.from('a') }], '', null)).statusCode).to.equal(401);
    expect((await k.inject({ url: '/v1/files' })).statusCode).to.equal(401);
    expect((await k.inject({ url: '/v1/files', token: 'bad-token' })).statusCode).to.equal(401);
    expect(tmpFiles()).to.deep.equal([]);
  });
});

describe('relay catalog: local conversations', function () {
  this.timeout(120_000);
  let k: TestKernel;
  const post = (url: string, payload: unknown) => k.inject({ method: 'POST', url, token: relayTokenOf(k), payload: payload as Record<string, unknown> });
  before(async () => {
    k = await createTestKernel({ plugins: [{ plugin: relayPlugin, config: { gate: OPEN_GATE, hosted: { accounts: [] }, conversations: { maxConversations: 3, maxItems: 2, maxMetadataBytes: 64 } } }] });
  });
  after(() => k?.stop());

  it('creates a conversation with its metadata and seed items, reads, updates and deletes it', async () => {
    const created = await post('/v1/conversations', { metadata: { topic: 'demo' }, items: [{ type: 'message', role: 'user', content: 'hi' }] });
    expect(created.statusCode, created.body).to.equal(200);
    const record = created.json<{ id: string; created_at: number; updated_at: number }>();
    expect(record.id).to.match(/^conv_[0-9a-f]{32}$/);
    expect(record).to.deep.equal({ id: record.id, object: 'conversation', created_at: record.created_at, updated_at: record.created_at, latest_response_id: null, metadata: { topic: 'demo' }, seed_items: [{ type: 'message', role: 'user', content: 'hi' }] });
    expect((await k.inject({ url: `/v1/conversations/${record.id}`, token: relayTokenOf(k) })).json()).to.deep.equal(record);
    const updated = await post(`/v1/conversations/${record.id}`, { metadata: { topic: 'changed' } });
    expect(updated.statusCode).to.equal(200);
    expect(updated.json()).to.deep.include({ id: record.id, metadata: { topic: 'changed' }, seed_items: [{ type: 'message', role: 'user', content: 'hi' }] });
    const deleted = await k.inject({ method: 'DELETE', url: `/v1/conversations/${record.id}`, token: relayTokenOf(k) });
    expect(deleted.json()).to.deep.equal({ id: record.id, object: 'conversation.deleted', deleted: true });
    for (const res of [
      await k.inject({ url: `/v1/conversations/${record.id}`, token: relayTokenOf(k) }),
      await post(`/v1/conversations/${record.id}`, { metadata: {} }),
      await k.inject({ method: 'DELETE', url: `/v1/conversations/${record.id}`, token: relayTokenOf(k) }),
    ]) {
      expect(res.statusCode).to.equal(404);
      expect(errorOf(res).error.code).to.equal('conversation_not_found');
    }
  });

  it('creates an empty conversation from an empty body', async () => {
    const created = await post('/v1/conversations', {});
    expect(created.json()).to.deep.include({ metadata: {}, seed_items: [], latest_response_id: null });
    await k.inject({ method: 'DELETE', url: `/v1/conversations/${created.json<{ id: string }>().id}`, token: relayTokenOf(k) });
  });

  it('answers 404 for hostile and unknown ids', async () => {
    for (const id of ['conv_' + '0'.repeat(32), 'conv_../../x', '..%2F..%2Fdb', 'CONV_' + 'a'.repeat(32), 'x'.repeat(300)]) {
      const res = await k.inject({ url: `/v1/conversations/${id}`, token: relayTokenOf(k) });
      expect(res.statusCode, `${id}: ${res.body}`).to.be.oneOf([404, 400]);
    }
    expect((await k.inject({ url: `/v1/conversations/conv_${'0'.repeat(32)}`, token: relayTokenOf(k) })).statusCode).to.equal(404);
  });

  it('refuses bad bodies: metadata over conversations.maxMetadataBytes, too many items, unknown fields, non-objects', async () => {
    const big = await post('/v1/conversations', { metadata: { note: 'x'.repeat(100) } });
    expect(big.statusCode).to.equal(400);
    expect(errorOf(big).error.code).to.equal('metadata_too_large');
    const many = await post('/v1/conversations', { items: [{}, {}, {}] });
    expect(many.statusCode).to.equal(400);
    expect(errorOf(many).error.code).to.equal('too_many_items');
    expect((await post('/v1/conversations', { metadata: {}, extra: 1 })).statusCode).to.equal(400);
    expect((await post('/v1/conversations', { metadata: 'text' })).statusCode).to.equal(400);
    expect((await post('/v1/conversations', { items: ['text'] })).statusCode).to.equal(400);
  });

  it('refuses a conversation past conversations.maxConversations with 413; deleting makes room', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await post('/v1/conversations', {})).json<{ id: string }>().id);
    const refused = await post('/v1/conversations', {});
    expect(refused.statusCode).to.equal(413);
    expect(errorOf(refused).error.code).to.equal('too_many_conversations');
    await k.inject({ method: 'DELETE', url: `/v1/conversations/${ids[0]}`, token: relayTokenOf(k) });
    expect((await post('/v1/conversations', {})).statusCode).to.equal(200);
  });

  it('refuses every conversation route without a token', async () => {
    expect((await k.inject({ method: 'POST', url: '/v1/conversations', payload: {} })).statusCode).to.equal(401);
    expect((await k.inject({ url: `/v1/conversations/conv_${'0'.repeat(32)}` })).statusCode).to.equal(401);
  });
});

describe('relay catalog: storage with the hosted runtime off', function () {
  this.timeout(120_000);
  let k: TestKernel;
  before(async () => {
    k = await createTestKernel({ plugins: [{ plugin: relayPlugin, config: { gate: OPEN_GATE, hosted: { enabled: false }, cli: { models: ['keel-tiny-chat'] } } }] });
  });
  after(() => k?.stop());

  it('answers 501 on every files and conversations route, before looking at the id', async () => {
    const body = form([{ name: 'file', filename: 'a.txt', bytes: Buffer.from('a') }]);
    const answers = [
      await k.inject({ method: 'POST', url: '/v1/files', token: relayTokenOf(k), payload: body.payload, headers: body.headers }),
      await k.inject({ url: '/v1/files', token: relayTokenOf(k) }),
      await k.inject({ url: '/v1/files/not-an-id', token: relayTokenOf(k) }),
      await k.inject({ url: `/v1/files/file_${'0'.repeat(32)}/content`, token: relayTokenOf(k) }),
      await k.inject({ method: 'DELETE', url: `/v1/files/file_${'0'.repeat(32)}`, token: relayTokenOf(k) }),
      await k.inject({ method: 'POST', url: '/v1/conversations', token: relayTokenOf(k), payload: {} }),
      await k.inject({ url: '/v1/conversations/whatever', token: relayTokenOf(k) }),
      await k.inject({ method: 'POST', url: `/v1/conversations/conv_${'0'.repeat(32)}`, token: relayTokenOf(k), payload: { metadata: {} } }),
      await k.inject({ method: 'DELETE', url: `/v1/conversations/conv_${'0'.repeat(32)}`, token: relayTokenOf(k) }),
    ];
    for (const res of answers) {
      expect(res.statusCode, res.body).to.equal(501);
      const { error, detail } = errorOf(res);
      expect(error).to.include({ type: 'unsupported_error', code: 'hosted_runtime_disabled' });
      expect(error.message).to.match(/available only when the hosted runtime is enabled/);
      expect(detail).to.equal(error.message);
    }
  });

  it('documents every route in /openapi.json, the upload as multipart with the field file', async () => {
    const doc = (await k.inject({ url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { required?: string[] } }> } }>> }>();
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/v1'))).to.include.members(['/v1/models', '/v1/files', '/v1/files/{id}', '/v1/files/{id}/content', '/v1/conversations', '/v1/conversations/{id}']);
    expect(doc.paths['/v1/files']!.post!.requestBody!.content['multipart/form-data']!.schema.required).to.deep.equal(['file']);
    expect(Object.keys(doc.paths['/v1/conversations/{id}']!)).to.include.members(['get', 'post', 'delete']);
  });

  it('lists only the client models', async () => {
    const res = await k.inject({ url: '/v1/models', token: relayTokenOf(k) });
    expect(res.statusCode).to.equal(200);
    expect(res.json<{ data: Array<{ id: string }> }>().data.map((m) => m.id)).to.deep.equal(['cli:keel-tiny-chat']);
  });
});
