import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import { artifactsGateway, form, type UploadAnswer } from './helpers/artifacts.js';
import { until } from './helpers/until.js';

/**
 * `POST /api/gateway/attachments/upload` (seed §4.6, reference §2.1–2.4) through the front door:
 * the reference it answers, the content-addressed blob on disk, every limit, broken bodies and
 * hostile names.
 */

/** The sentence of a gateway error body (`{detail: sentence}` or `{detail: {message}}`). */
const why = (res: { json<T>(): T }) => {
  const { detail } = res.json<{ detail: string | { message: string } }>();
  return typeof detail === 'string' ? detail : detail.message;
};
const sha = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('artifacts: uploads', function () {
  this.timeout(120_000);
  const gw = artifactsGateway({ maxFields: 4, maxFieldBytes: 512 }, { maxAttachmentBytes: 4096 });
  before(() => gw.boot());
  after(() => gw.stop());

  let listening = '';
  const baseUrl = async () => (listening ||= (await gw.k.listen()).url);
  const pluginDir = () => path.join(gw.k.dataDir, 'plugins', 'artifacts');
  const tmpFiles = () => (existsSync(path.join(pluginDir(), 'tmp')) ? readdirSync(path.join(pluginDir(), 'tmp')) : []);
  const blobPath = (account: string, digest: string) => path.join(pluginDir(), 'accounts', account, 'blobs', digest.slice(0, 2), digest);

  it('stores the file content-addressed and answers the artifact reference', async () => {
    const answer = await gw.put(gw.bob, 'sess-1', 'notes.txt', 'hello artifacts');
    const ref = answer.artifact;
    expect(answer.ok).to.equal(true);
    expect(ref.$artifact).to.equal(ref.artifact_id).and.match(/^[A-Za-z0-9_-]{20,}$/);
    expect(ref).to.include({ run_id: 'session_memory_sess-1', content_type: 'text/plain', filename: 'notes.txt', modality: 'text', sha256: sha('hello artifacts'), target: 'client' });
    expect(answer.attachment).to.deep.equal(ref);
    expect(answer.run_id).to.equal('session_memory_sess-1');
    expect(answer.metadata).to.include({ size_bytes: 15, session_id: 'sess-1', path: 'client:notes.txt', origin: 'upload' });
    expect(answer.metadata.tags).to.include({ kind: 'attachment', target: 'client', source: 'upload', session_id: 'sess-1', sha256: sha('hello artifacts') });
    expect(readFileSync(blobPath('bob', ref.sha256), 'utf8')).to.equal('hello artifacts');
    expect(tmpFiles()).to.deep.equal([]);
  });

  it('keeps the form content type, else the part type, else a guess from the name', async () => {
    expect((await gw.put(gw.bob, 's-ct', 'a.bin', 'x', [{ name: 'content_type', value: 'image/png' }])).artifact.content_type).to.equal('image/png');
    expect((await gw.put(gw.bob, 's-ct', 'b.dat', 'x', [], 'Audio/WAV; charset=x')).artifact.content_type).to.equal('audio/wav');
    expect((await gw.put(gw.bob, 's-ct', 'c.json', '{}', [{ name: 'content_type', value: 'not a type' }])).artifact.content_type).to.equal('application/json');
    expect((await gw.put(gw.bob, 's-ct', 'noext', 'x', [], 'application/octet-stream')).artifact.content_type).to.equal('application/octet-stream');
    // Source files that mime-types (and browsers) type wrongly or not at all are code, not video or binary.
    const typed = async (name: string, partType?: string) => (await gw.put(gw.bob, 's-ct', name, 'let x = 1;', [], partType)).artifact;
    expect(await typed('main.ts', 'video/mp2t')).to.include({ content_type: 'text/x-typescript', modality: 'text' });
    expect((await typed('lib.rs')).content_type).to.equal('text/x-rust');
    expect((await typed('app.py', 'text/plain')).content_type).to.equal('text/x-python');
  });

  it('refuses an upload without session_id or without a file, and a text value in the file field', async () => {
    const noSession = await gw.upload(gw.bob, [{ name: 'file', filename: 'a.txt', bytes: Buffer.from('a') }]);
    expect(noSession.statusCode).to.equal(400);
    expect(why(noSession)).to.match(/session_id is required/);
    const blank = await gw.upload(gw.bob, [{ name: 'session_id', value: '   ' }, { name: 'file', filename: 'a.txt', bytes: Buffer.from('a') }]);
    expect(blank.statusCode).to.equal(400);
    const noFile = await gw.upload(gw.bob, [{ name: 'session_id', value: 's' }]);
    expect(noFile.statusCode).to.equal(400);
    expect(why(noFile)).to.match(/form field 'file'/);
    const textFile = await gw.upload(gw.bob, [{ name: 'session_id', value: 's' }, { name: 'file', value: 'not a file' }]);
    expect(textFile.statusCode).to.equal(400);
    expect(tmpFiles()).to.deep.equal([]);
  });

  it('refuses a file above maxAttachmentBytes with 413 and keeps no bytes of it', async () => {
    const before = readdirSync(path.join(pluginDir(), 'accounts', 'bob', 'blobs')).length;
    const big = Buffer.alloc(4097, 7);
    const res = await gw.upload(gw.bob, [{ name: 'session_id', value: 'big' }, { name: 'file', filename: 'big.bin', bytes: big }]);
    expect(res.statusCode).to.equal(413);
    expect(why(res)).to.match(/Attachment too large .*maxAttachmentBytes/);
    expect(existsSync(blobPath('bob', sha(big)))).to.equal(false);
    expect(readdirSync(path.join(pluginDir(), 'accounts', 'bob', 'blobs')).length).to.equal(before);
    expect(tmpFiles()).to.deep.equal([]);
    // Exactly the limit is fine.
    await gw.put(gw.bob, 'big', 'edge.bin', Buffer.alloc(4096, 7));
  });

  it('answers a too-large upload over a real socket with 413 before reading the rest', async () => {
    const url = await baseUrl();
    const body = form([{ name: 'session_id', value: 'sock' }, { name: 'file', filename: 'huge.bin', bytes: Buffer.alloc(2 * 1024 * 1024, 3) }]);
    const res = await fetch(`${url}/api/gateway/attachments/upload`, { method: 'POST', headers: { ...body.headers, authorization: `Bearer ${gw.bob}` }, body: body.payload });
    expect(res.status).to.equal(413);
    expect(((await res.json()) as { detail: { reason_code: string } }).detail.reason_code).to.equal('attachment_too_large');
    expect(tmpFiles()).to.deep.equal([]);
  });

  it('drops the bytes of an upload whose client goes away in the middle of the file', async () => {
    const url = await baseUrl();
    const boundary = 'gone';
    const req = http.request(`${url}/api/gateway/attachments/upload`, { method: 'POST', headers: { authorization: `Bearer ${gw.bob}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' } });
    req.on('error', () => undefined);
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="session_id"\r\n\r\ngone\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.bin"\r\n\r\n`);
    req.write(Buffer.alloc(2000, 9));
    await until(() => tmpFiles().length > 0, { what: 'the upload to reach a temporary file' });
    req.destroy();
    await until(() => tmpFiles().length === 0, { what: 'the temporary file of the abandoned upload to be removed' });
    const list = await gw.get(gw.bob, '/api/gateway/sessions/gone/artifacts');
    expect(list.statusCode).to.equal(404);
  });

  it('refuses two files, too many fields, a field above maxFieldBytes and a repeated field', async () => {
    const two = await gw.upload(gw.bob, [{ name: 'session_id', value: 's' }, { name: 'file', filename: 'a.txt', bytes: Buffer.from('a') }, { name: 'file', filename: 'b.txt', bytes: Buffer.from('b') }]);
    expect(two.statusCode).to.equal(400);
    expect(why(two)).to.match(/one file per upload/);
    const otherFile = await gw.upload(gw.bob, [{ name: 'session_id', value: 's' }, { name: 'other', filename: 'b.txt', bytes: Buffer.from('b') }]);
    expect(otherFile.statusCode).to.equal(400);
    const fields = await gw.upload(gw.bob, [{ name: 'session_id', value: 's' }, ...['a', 'b', 'c', 'd', 'e'].map((name) => ({ name, value: 'x' })), { name: 'file', filename: 'a.txt', bytes: Buffer.from('a') }]);
    expect(fields.statusCode).to.equal(400);
    expect(why(fields)).to.match(/more than 4 form fields/);
    const huge = await gw.upload(gw.bob, [{ name: 'session_id', value: 's' }, { name: 'source_path', value: 'a/'.repeat(100_000) }, { name: 'file', filename: 'a.txt', bytes: Buffer.from('a') }]);
    expect(huge.statusCode).to.equal(400);
    expect(why(huge)).to.match(/'source_path' is larger than 512 bytes/);
    const twice = await gw.upload(gw.bob, [{ name: 'session_id', value: 's' }, { name: 'session_id', value: 't' }, { name: 'file', filename: 'a.txt', bytes: Buffer.from('a') }]);
    expect(twice.statusCode).to.equal(400);
    expect(tmpFiles()).to.deep.equal([]);
  });

  it('refuses bodies that are not multipart or are broken', async () => {
    const url = '/api/gateway/attachments/upload';
    const json = await gw.k.inject({ method: 'POST', url, token: gw.bob, payload: { session_id: 's' } });
    expect(json.statusCode).to.equal(400);
    const noBoundary = await gw.k.inject({ method: 'POST', url, token: gw.bob, payload: 'x', headers: { 'content-type': 'multipart/form-data' } });
    expect(noBoundary.statusCode).to.equal(400);
    const good = form([{ name: 'session_id', value: 's' }, { name: 'file', filename: 'a.txt', bytes: Buffer.from('abc') }]);
    const truncated = await gw.k.inject({ method: 'POST', url, token: gw.bob, payload: good.payload.subarray(0, good.payload.length - 30), headers: good.headers });
    expect(truncated.statusCode).to.equal(400);
    expect(why(truncated)).to.match(/could not be read as multipart/);
    const garbage = await gw.k.inject({ method: 'POST', url, token: gw.bob, payload: Buffer.from('--zz\r\nnonsense\r\n\r\n'), headers: { 'content-type': 'multipart/form-data; boundary=zz' } });
    expect(garbage.statusCode).to.equal(400);
    const anonymous = await gw.k.inject({ method: 'POST', url, payload: good.payload, headers: good.headers });
    expect(anonymous.statusCode).to.equal(401);
    expect(tmpFiles()).to.deep.equal([]);
  });

  it('keeps only the base name of a file name with path tricks', async () => {
    for (const [sent, kept] of [['../../etc/passwd', 'passwd'], ['..\\..\\win.ini', 'win.ini'], ['/abs/x.txt', 'x.txt'], ['..', 'upload.bin'], ['dir/', 'upload.bin']]) {
      const answer = await gw.put(gw.bob, 'tricks', sent, `bytes of ${sent}`);
      expect(answer.artifact.filename, sent).to.equal(kept);
      expect(answer.metadata.path, sent).to.not.include('..');
    }
    // An empty file name is a form without a chosen file: no file part at all.
    expect((await gw.upload(gw.bob, [{ name: 'session_id', value: 's' }, { name: 'file', filename: '', bytes: Buffer.from('a') }])).statusCode).to.equal(400);
    const ctl = await gw.upload(gw.bob, [{ name: 'session_id', value: 's' }, { name: 'filename', value: 'a\u0001b.txt' }, { name: 'file', filename: 'x', bytes: Buffer.from('a') }]);
    expect(ctl.statusCode).to.equal(400);
  });

  it('takes a relative source_path and refuses `..`, absolute paths, drives and NUL', async () => {
    const ok = await gw.put(gw.bob, 'folder', 'a.png', 'png-bytes', [{ name: 'source_path', value: 'docs\\img//./a.png' }]);
    expect(ok.artifact.source_path).to.equal('docs/img/a.png');
    expect(ok.metadata.path).to.equal('client:docs/img/a.png');
    for (const bad of ['../x.txt', 'a/../../b.txt', '/etc/passwd', '\\\\server\\share\\x', 'C:\\x.txt', 'c:x', 'a\u0000b', 'a/b:c', '.', './/']) {
      const res = await gw.upload(gw.bob, [{ name: 'session_id', value: 'folder' }, { name: 'source_path', value: bad }, { name: 'file', filename: 'x.txt', bytes: Buffer.from('x') }]);
      expect(res.statusCode, JSON.stringify(bad)).to.equal(400);
      expect(why(res), bad).to.match(/source_path must be a relative path/);
    }
  });

  it('gives equal names with other bytes deterministic digest-suffixed aliases', async () => {
    const first = await gw.put(gw.bob, 'clash', 'report.txt', 'one');
    const second = await gw.put(gw.bob, 'clash', 'report.txt', 'two');
    const again = await gw.put(gw.bob, 'clash', 'report.txt', 'one');
    expect(first.metadata.path).to.equal('client:report.txt');
    expect(second.metadata.path).to.equal(`client:report-${sha('two').slice(0, 8)}.txt`);
    expect(second.metadata.tags.alias).to.equal(`report-${sha('two').slice(0, 8)}.txt`);
    expect(second.artifact.filename).to.equal('report.txt');
    expect(again.metadata.path).to.equal('client:report.txt');
    // A folder upload: equal base names in two folders keep their member paths, their aliases differ.
    const x = await gw.put(gw.bob, 'tree', 'a.md', 'x', [{ name: 'source_path', value: 'x/a.md' }]);
    const y = await gw.put(gw.bob, 'tree', 'a.md', 'y', [{ name: 'source_path', value: 'y/a.md' }]);
    expect([x.metadata.path, y.metadata.path]).to.deep.equal(['client:x/a.md', 'client:y/a.md']);
    expect(x.metadata.tags.alias).to.equal('a.md');
    expect(y.metadata.tags.alias).to.equal(`a-${sha('y').slice(0, 8)}.md`);
    // Another session does not clash.
    expect((await gw.put(gw.bob, 'other-clash', 'report.txt', 'two')).metadata.path).to.equal('client:report.txt');
  });

  it('names concurrent uploads of one name apart', async () => {
    const answers = await Promise.all(['p', 'q', 'r', 's', 't', 'u', 'v', 'w'].map((bytes) => gw.put(gw.bob, 'race', 'same.txt', bytes)));
    expect(new Set(answers.map((a: UploadAnswer) => a.metadata.path)).size).to.equal(8);
  });

  it('takes caller tags but never lets them replace the reserved ones', async () => {
    const answer = await gw.put(gw.bob, 'tags', 't.txt', 't', [{ name: 'tags', value: JSON.stringify({ shared: 'user', session_id: 'other', kind: 'x', color: 'red' }) }]);
    expect(answer.metadata.tags).to.include({ shared: 'user', session_id: 'tags', kind: 'attachment', color: 'red' });
    for (const bad of ['[1]', '{"a": 1}', 'nope', JSON.stringify(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, 'v'])))]) {
      const res = await gw.upload(gw.bob, [{ name: 'session_id', value: 'tags' }, { name: 'tags', value: bad }, { name: 'file', filename: 'a.txt', bytes: Buffer.from('a') }]);
      expect(res.statusCode, bad).to.equal(400);
    }
  });

  it('documents the form in /openapi.json as multipart/form-data (the body is streamed by the route, not read by the kernel)', async () => {
    const doc = (await gw.k.inject({ url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { required: string[]; properties: Record<string, unknown> } }> } }>> }>();
    const form = doc.paths['/api/gateway/attachments/upload']!.post!.requestBody!.content['multipart/form-data']!.schema;
    expect(form.required).to.deep.equal(['file', 'session_id']);
    expect(Object.keys(form.properties)).to.include.members(['file', 'session_id', 'source_path']);
  });
});
