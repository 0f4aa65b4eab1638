/**
 * The SDK's file helpers through HTTP on a real port (raw paths, so `..` and encoded separators
 * reach the server): `staticFolder` (index, redirect, types, caching, CSP, 304) and `sendFile`
 * (Range 206/416, HEAD, If-None-Match, nosniff, sandbox CSP, Content-Disposition), and for both:
 * no way out of the folder, no dotfiles, no symlink leading out, no FIFO.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { fileServingPlugin, SITE_CSP } from './fixtures/file-serving-plugin.js';

interface RawResponse { status: number; headers: http.IncomingHttpHeaders; body: string }

function request(base: string, rawPath: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: rawPath, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

const HELLO = '0123456789abcdefghij';
const OUTSIDE = 'OUTSIDE-SECRET';

describe('SDK file helpers (staticFolder, sendFile)', () => {
  let tmp: string;
  let kernel: TestKernel;
  let base: string;
  let hasFifo = false;

  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'keel-files-'));
    const root = path.join(tmp, 'root');
    mkdirSync(path.join(root, 'sub'), { recursive: true });
    mkdirSync(path.join(root, '.hidden'));
    writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>site</title>');
    writeFileSync(path.join(root, 'hello.txt'), HELLO);
    writeFileSync(path.join(root, 'sub', 'page.css'), 'body{}');
    writeFileSync(path.join(root, 'résumé "v2".pdf'), '%PDF');
    writeFileSync(path.join(root, '.secret'), OUTSIDE);
    writeFileSync(path.join(root, '.hidden', 'x.txt'), OUTSIDE);
    writeFileSync(path.join(tmp, 'outside.txt'), OUTSIDE);
    symlinkSync(path.join(tmp, 'outside.txt'), path.join(root, 'link-out.txt'));
    symlinkSync(tmp, path.join(root, 'dir-out'));
    symlinkSync('hello.txt', path.join(root, 'link-in.txt'));
    try {
      execFileSync('mkfifo', [path.join(root, 'pipe.txt')]);
      hasFifo = true;
    } catch {
      hasFifo = false; // no mkfifo on this system
    }
    kernel = await createTestKernel({ plugins: [fileServingPlugin(root)] });
    base = (await kernel.listen()).url;
  });
  after(async () => {
    await kernel?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('staticFolder redirects to the folder, serves its index and files with types, caching, CSP and nosniff', async () => {
    const redirect = await request(base, '/fs/site');
    expect(redirect.status).to.equal(302);
    expect(new URL(redirect.headers.location!, `${base}/fs/site`).pathname).to.equal('/fs/site/');
    const index = await request(base, '/fs/site/');
    expect(index.status).to.equal(200);
    expect(index.body).to.include('<title>site</title>');
    expect(index.headers['content-type']).to.match(/^text\/html/);
    expect(index.headers['cache-control']).to.equal('no-cache');
    expect(index.headers['content-security-policy']).to.equal(SITE_CSP);
    expect(index.headers['referrer-policy']).to.equal('no-referrer');
    expect(index.headers['x-content-type-options']).to.equal('nosniff');
    expect(index.headers['last-modified']).to.be.a('string');
    const css = await request(base, '/fs/site/sub/page.css');
    expect(css.status).to.equal(200);
    expect(css.headers['content-type']).to.match(/^text\/css/);
    expect(css.headers['cache-control']).to.equal('public, max-age=300');
    expect(css.headers['content-security-policy']).to.equal(SITE_CSP);
  });

  it('answers 304 to If-None-Match and If-Modified-Since, for both helpers', async () => {
    for (const url of ['/fs/site/sub/page.css', '/fs/files/hello.txt']) {
      const first = await request(base, url);
      expect(first.headers.etag, url).to.be.a('string');
      const byTag = await request(base, url, { 'if-none-match': String(first.headers.etag) });
      expect(byTag.status, url).to.equal(304);
      expect(byTag.body, url).to.equal('');
      const byDate = await request(base, url, { 'if-modified-since': String(first.headers['last-modified']) });
      expect(byDate.status, url).to.equal(304);
      const changed = await request(base, url, { 'if-none-match': '"something-else"' });
      expect(changed.status, url).to.equal(200);
    }
  });

  it('sendFile answers a file as a sandboxed, nosniffed attachment named by content-disposition', async () => {
    const res = await request(base, '/fs/files/hello.txt');
    expect(res.status).to.equal(200);
    expect(res.body).to.equal(HELLO);
    expect(res.headers['content-type']).to.match(/^text\/plain/);
    expect(res.headers['content-length']).to.equal(String(HELLO.length));
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.headers['content-security-policy']).to.equal('sandbox');
    expect(res.headers['accept-ranges']).to.equal('bytes');
    expect(res.headers['content-disposition']).to.equal('attachment; filename=hello.txt');
    const named = await request(base, `/fs/files/${encodeURIComponent('résumé "v2".pdf')}`);
    expect(named.status).to.equal(200);
    expect(named.headers['content-disposition']).to.equal(`attachment; filename="r_sum_ _v2_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22v2%22.pdf`);
  });

  it('answers single and suffix byte ranges with 206 and Content-Range, and the whole file for several ranges', async () => {
    const head = await request(base, '/fs/files/hello.txt', { range: 'bytes=0-3' });
    expect(head.status).to.equal(206);
    expect(head.body).to.equal('0123');
    expect(head.headers['content-range']).to.equal('bytes 0-3/20');
    expect(head.headers['content-length']).to.equal('4');
    const suffix = await request(base, '/fs/files/hello.txt', { range: 'bytes=-5' });
    expect(suffix.status).to.equal(206);
    expect(suffix.body).to.equal('fghij');
    expect(suffix.headers['content-range']).to.equal('bytes 15-19/20');
    const open = await request(base, '/fs/site/sub/page.css', { range: 'bytes=2-' });
    expect(open.status).to.equal(206);
    expect(open.body).to.equal('dy{}');
    const several = await request(base, '/fs/files/hello.txt', { range: 'bytes=0-1,5-6' });
    expect(several.status).to.equal(200);
    expect(several.body).to.equal(HELLO);
    // If-Range with a weak validator never applies a range (RFC 9110): the whole, current file.
    const stale = await request(base, '/fs/files/hello.txt', { range: 'bytes=0-3', 'if-range': String(head.headers.etag) });
    expect(stale.status).to.equal(200);
    expect(stale.body).to.equal(HELLO);
  });

  it('answers 416 with the file size for a range outside the file', async () => {
    const res = await request(base, '/fs/files/hello.txt', { range: 'bytes=30-40' });
    expect(res.status).to.equal(416);
    expect(res.headers['content-range']).to.equal('bytes */20');
    expect(JSON.parse(res.body).detail.message).to.match(/outside the file, which has 20 bytes/);
  });

  it('answers HEAD with the headers and length of GET and no body', async () => {
    const res = await request(base, '/fs/files/hello.txt', {}, 'HEAD');
    expect(res.status).to.equal(200);
    expect(res.body).to.equal('');
    expect(res.headers['content-length']).to.equal(String(HELLO.length));
    expect(res.headers['content-type']).to.match(/^text\/plain/);
    expect(res.headers['content-security-policy']).to.equal('sandbox');
    const ranged = await request(base, '/fs/files/hello.txt', { range: 'bytes=-5' }, 'HEAD');
    expect(ranged.status).to.equal(206);
    expect(ranged.headers['content-length']).to.equal('5');
    const page = await request(base, '/fs/site/', {}, 'HEAD');
    expect(page.status).to.equal(200);
    expect(page.body).to.equal('');
  });

  it('never leaves the folder: dot segments, encoded ones, backslashes, absolute paths and NUL are refused', async () => {
    for (const prefix of ['/fs/site/', '/fs/files/']) {
      for (const rest of [
        '../outside.txt', '%2e%2e/outside.txt', '%2E%2E%2Foutside.txt', 'sub/..%2f..%2foutside.txt', 'sub/%2e%2e/%2e%2e/outside.txt',
        '..%5coutside.txt', 'sub\\..\\..\\outside.txt', '%2Fetc%2Fpasswd', `${encodeURIComponent(path.join(tmp, 'outside.txt'))}`,
        '/etc/passwd', 'hello.txt%00.css', '%00', './hello.txt', 'sub//page.css', 'sub/', 'sub',
      ]) {
        const res = await request(base, prefix + rest);
        expect([400, 404], `${prefix}${rest} → ${res.status}`).to.include(res.status);
        expect(res.body, `${prefix}${rest}`).not.to.include(OUTSIDE);
        expect(res.body, `${prefix}${rest}`).not.to.include('root:');
      }
    }
  });

  it('refuses dotfiles and dot folders', async () => {
    for (const url of ['/fs/site/.secret', '/fs/site/.hidden/x.txt', '/fs/files/.secret', '/fs/files/.hidden/x.txt', '/fs/files/%2esecret']) {
      const res = await request(base, url);
      expect(res.status, url).to.equal(404);
      expect(res.body, url).not.to.include(OUTSIDE);
    }
  });

  it('follows a symlink that stays inside the folder and refuses one that leads out', async () => {
    expect((await request(base, '/fs/files/link-in.txt')).body).to.equal(HELLO);
    for (const url of ['/fs/files/link-out.txt', '/fs/site/link-out.txt', '/fs/files/dir-out/outside.txt', '/fs/site/dir-out/outside.txt']) {
      const res = await request(base, url);
      expect(res.status, url).to.equal(404);
      expect(res.body, url).not.to.include(OUTSIDE);
    }
  });

  it('refuses a FIFO at once instead of blocking on it', async function () {
    if (!hasFifo) this.skip();
    for (const url of ['/fs/files/pipe.txt', '/fs/site/pipe.txt']) {
      const res = await request(base, url);
      expect(res.status, url).to.equal(404);
    }
    // The server still answers (no worker thread is stuck on the FIFO).
    expect((await request(base, '/fs/files/hello.txt')).status).to.equal(200);
  });
});
