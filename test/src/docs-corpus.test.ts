/**
 * `GET /api/gateway/docs/corpus[?app=]` (seed 000 §4.7, §8, §2.10; reference gateway-surfaces §9.1)
 * through HTTP: Keel's own corpus and its resolution order (KEEL_DOCS_CORPUS first, set-but-unusable
 * is a 404 naming what was checked, then the checkout's llms.txt), the companion apps' llms.txt
 * fetched from a loopback server within a size cap and a timeout, and every 404 naming its cause;
 * hostile app ids, corpus paths and app answers.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { repoRoot, tempDir } from './helpers/paths.js';

interface Corpus {
  app: string;
  source: string;
  chars: number;
  text: string;
}
interface Refusal {
  detail: { reason_code: string; message: string; candidates?: string[] };
}

const ENV = 'KEEL_DOCS_CORPUS';
const APP_DOCS = '# AbstractFlow\n\n> Visual workflows.\n\n## Nodes\n- llm_call: one model call 🚀\n';

/** A loopback app server: each path answers what `routes` says (or 404); `hits` counts requests per path. */
function appServer(routes: Record<string, (res: http.ServerResponse) => void>) {
  const hits: Record<string, number> = {};
  const server = http.createServer((req, res) => {
    const at = new URL(req.url ?? '/', 'http://x').pathname;
    hits[at] = (hits[at] ?? 0) + 1;
    const answer = routes[at];
    if (answer) answer(res);
    else res.writeHead(404).end('not here');
  });
  return {
    hits,
    listen: () => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe('docs corpus: GET /docs/corpus (gateway resolution, app llms.txt, 404 causes)', function () {
  this.timeout(60_000);
  let k: TestKernel;
  const files = tempDir('keel-docs-corpus-');
  const servers: Array<ReturnType<typeof appServer>> = [];
  const port: Record<string, number> = {};
  const savedEnv = process.env[ENV];

  before(async () => {
    // One server per app id, each answering a different way; `entity` is configured on a port nothing listens on.
    const big = 'x'.repeat(5000);
    const plans: Record<string, Record<string, (res: http.ServerResponse) => void>> = {
      flow: { '/llms.txt': (res) => res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(APP_DOCS), '/elsewhere': (res) => res.writeHead(200).end('secret') },
      code: { '/llms.txt': (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body>app</body></html>') },
      observer: { '/llms.txt': (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('\n  <!DOCTYPE html>\n<html lang="en"><div id="root"></div></html>') },
      continuum: {
        '/llms.txt': (res) => {
          // Chunked, no content-length: the cap is enforced while reading.
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write(big);
          res.end(big);
        },
      },
    };
    for (const [id, routes] of Object.entries(plans)) {
      const s = appServer(routes);
      servers.push(s);
      port[id] = await s.listen();
    }
    const closed = appServer({});
    port.entity = await closed.listen();
    await closed.close();
    k = await createTestKernel({
      plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, {
        plugin: gatewayRunsPlugin,
        config: {
          docs: {
            apps: { flow: `http://127.0.0.1:${port.flow}`, code: `http://127.0.0.1:${port.code}/`, observer: `http://localhost:${port.observer}`, continuum: `http://127.0.0.1:${port.continuum}`, entity: `http://127.0.0.1:${port.entity}` },
            maxAppCorpusBytes: 8000,
            maxCorpusBytes: 1_000_000,
            appFetchTimeoutMs: 1000,
          },
        },
      }],
    });
  });
  afterEach(() => {
    if (savedEnv === undefined) delete process.env[ENV];
    else process.env[ENV] = savedEnv;
  });
  after(async () => {
    await k?.stop();
    for (const s of servers) await s.close();
    files.remove();
  });

  const corpus = (query = '', token: string | undefined = k.adminToken) => k.inject({ url: `/api/gateway/docs/corpus${query}`, token });
  const refusal = async (query: string, status = 404) => {
    const res = await corpus(query);
    expect(res.statusCode, res.body).to.equal(status);
    return res.json<Refusal>().detail;
  };

  it("answers Keel's own corpus from the checkout's llms.txt when KEEL_DOCS_CORPUS is unset, for app omitted and app=gateway", async () => {
    delete process.env[ENV];
    const expected = readFileSync(path.join(repoRoot, 'llms.txt'), 'utf8');
    for (const query of ['', '?app=gateway', '?app=%20gateway%20']) {
      const res = await corpus(query);
      expect(res.statusCode, res.body).to.equal(200);
      const body = res.json<Corpus>();
      expect(body).to.include({ app: 'Keel', source: 'checkout:llms.txt' });
      expect(body.text).to.equal(expected);
      expect(body.chars).to.equal([...expected].length);
    }
  });

  it('is described in /openapi.json with its app query parameter and response fields', async () => {
    const spec = (await k.inject({ url: '/openapi.json' })).json<{ paths: Record<string, { get?: { parameters?: Array<{ name: string; in: string }>; responses: Record<string, { content?: Record<string, { schema: { required?: string[] } }> }> } }> }>();
    const op = spec.paths['/api/gateway/docs/corpus']?.get;
    expect(op, 'GET /api/gateway/docs/corpus in /openapi.json').to.not.equal(undefined);
    expect(op!.parameters!.map((p) => `${p.in}:${p.name}`)).to.include('query:app');
    expect(op!.responses['200']!.content!['application/json']!.schema.required).to.deep.equal(['app', 'source', 'chars', 'text']);
  });

  it('needs a signed-in principal (401 without a token); any account may read it', async () => {
    expect((await corpus('', '')).statusCode).to.equal(401);
    const user = (await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account: 'reader' } })).json<{ token: { token: string } }>().token.token;
    expect((await corpus('', user)).statusCode).to.equal(200);
  });

  it('KEEL_DOCS_CORPUS comes first; chars counts code points, not UTF-16 units', async () => {
    const file = path.join(files.dir, 'corpus.txt');
    writeFileSync(file, '# Mine\nemoji 🚀 here\n');
    process.env[ENV] = file;
    const body = (await corpus()).json<Corpus>();
    expect(body).to.deep.equal({ app: 'Keel', source: 'env:KEEL_DOCS_CORPUS', chars: 20, text: '# Mine\nemoji 🚀 here\n' });
    expect(body.text.length).to.equal(21);
  });

  it('KEEL_DOCS_CORPUS set but missing is a 404 naming the candidate checked, never a fallback to llms.txt', async () => {
    const missing = path.join(files.dir, 'nope', 'llms.txt');
    process.env[ENV] = missing;
    const detail = await refusal('');
    expect(detail.reason_code).to.equal('docs_corpus_missing');
    expect(detail.message).to.contain(ENV).and.contain(missing).and.contain('does not exist');
    expect(detail.candidates).to.deep.equal([missing]);
    process.env[ENV] = 'relative/llms.txt';
    expect((await refusal('')).message).to.contain("'relative/llms.txt', which is not an absolute path");
  });

  it('KEEL_DOCS_CORPUS pointing into the data folder (directly, through a symlink or ..) is refused: the tokens live there', async () => {
    const authDir = path.join(k.dataDir, 'auth');
    const secret = path.join(authDir, readdirSync(authDir)[0]!);
    const link = path.join(files.dir, 'innocent.txt');
    symlinkSync(secret, link);
    for (const target of [secret, link, `${files.dir}/../${path.relative(path.dirname(files.dir), secret)}`]) {
      process.env[ENV] = target;
      const res = await corpus();
      expect(res.statusCode, target).to.equal(404);
      const detail = res.json<Refusal>().detail;
      expect(detail.reason_code).to.equal('docs_corpus_refused');
      expect(detail.message).to.contain("inside Keel's data folder");
      expect(res.body).not.to.contain(readFileSync(secret, 'utf8').trim().slice(0, 40));
    }
  });

  it('KEEL_DOCS_CORPUS naming a directory, a FIFO, an oversize or a binary file is a 404 saying which', async () => {
    const dir = path.join(files.dir, 'a-folder');
    mkdirSync(dir);
    const fifo = path.join(files.dir, 'a-fifo');
    execFileSync('mkfifo', [fifo]);
    const big = path.join(files.dir, 'big.txt');
    writeFileSync(big, 'y'.repeat(1_000_001));
    const binary = path.join(files.dir, 'binary.bin');
    writeFileSync(binary, Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28]));
    const cases: Array<[string, string]> = [[dir, 'is not a regular file'], [fifo, 'is not a regular file'], [big, 'above the 1000000-byte limit (gateway-runs setting docs.maxCorpusBytes)'], [binary, 'is not UTF-8 text']];
    for (const [file, why] of cases) {
      process.env[ENV] = file;
      const detail = await refusal('');
      expect(detail.message, file).to.contain(why);
      expect(detail.reason_code).to.equal('docs_corpus_refused');
    }
  });

  it('fetches a configured app\'s llms.txt from loopback: {app: display name, source: app:<id>:llms.txt}', async () => {
    const body = (await corpus('?app=flow')).json<Corpus>();
    expect(body).to.deep.equal({ app: 'AbstractFlow', source: 'app:flow:llms.txt', chars: [...APP_DOCS].length, text: APP_DOCS });
  });

  it('unknown app ids, path-like and prototype names included, are 404 "Unknown app" and reach no server', async () => {
    const before = { ...servers[0]!.hits };
    for (const id of ['nope', '../../etc/passwd', 'flow/../elsewhere', 'flow%2F..%2Felsewhere', '__proto__', 'constructor', 'toString', 'Flow', 'gateway/..']) {
      const detail = await refusal(`?app=${encodeURIComponent(id)}`);
      expect(detail.reason_code, id).to.equal('unknown_app');
      expect(detail.message, id).to.contain(`Unknown app '${id}'`);
    }
    expect(servers[0]!.hits).to.deep.equal(before);
    expect((await corpus(`?app=${'a'.repeat(300)}`)).statusCode).to.equal(400);
  });

  it('an app with no configured URL, or with nothing listening, is "<name> is not running on this gateway"', async () => {
    const k2 = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    try {
      const res = await k2.inject({ url: '/api/gateway/docs/corpus?app=continuum', token: k2.adminToken });
      expect(res.statusCode).to.equal(404);
      expect(res.json<Refusal>().detail).to.include({ reason_code: 'app_not_running' });
      expect(res.json<Refusal>().detail.message).to.match(/^AbstractContinuum is not running on this gateway: no loopback URL is configured for it \(gateway-runs setting docs\.apps\.continuum\)\.$/);
    } finally {
      await k2.stop();
    }
    const detail = await refusal('?app=entity');
    expect(detail.reason_code).to.equal('app_not_running');
    expect(detail.message).to.match(/^AbstractEntity is not running on this gateway: nothing answers at http:\/\/127\.0\.0\.1:\d+\/llms\.txt\.$/);
  });

  it('an app answering HTML (by content type or by its page shell) does not serve its documentation', async () => {
    const code = await refusal('?app=code');
    expect(code.reason_code).to.equal('app_docs_unavailable');
    expect(code.message).to.equal(`AbstractCode on port ${port.code} answers HTML (its web page) instead of text, so it does not serve its documentation (llms.txt).`);
    const observer = await refusal('?app=observer');
    expect(observer.message).to.equal(`AbstractObserver on port ${port.observer} answers HTML (its web page) instead of text, so it does not serve its documentation (llms.txt).`);
  });

  it('an oversize app llms.txt (streamed without a length) is refused naming the limit', async () => {
    const detail = await refusal('?app=continuum');
    expect(detail.reason_code).to.equal('app_docs_unavailable');
    expect(detail.message).to.contain('above the 8000-byte limit (gateway-runs setting docs.maxAppCorpusBytes)');
  });

  it('refuses a loopback URL that is not loopback in the setting (the kernel does not start)', async () => {
    for (const url of ['http://example.com:80', 'http://127.0.0.1.evil.test:80', 'file:///etc/passwd', 'http://127.0.0.1:80/path']) {
      let failed: Error | null = null;
      try {
        const bad = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { docs: { apps: { flow: url } } } }] });
        await bad.stop();
      } catch (err) {
        failed = err as Error;
      }
      expect(failed, url).not.to.equal(null);
      expect(failed!.message, url).to.contain('docs');
    }
  });
});

describe('docs corpus: app answers that misbehave (redirect, error status, slow, declared oversize)', function () {
  this.timeout(60_000);
  let k: TestKernel;
  let hold: http.ServerResponse | null = null;
  const target = appServer({ '/secret': (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('redirected text') });
  const servers: Array<ReturnType<typeof appServer>> = [];
  const port: Record<string, number> = {};

  before(async () => {
    const targetPort = await target.listen();
    const plans: Record<string, Record<string, (res: http.ServerResponse) => void>> = {
      flow: { '/llms.txt': (res) => res.writeHead(302, { location: `http://127.0.0.1:${targetPort}/secret` }).end() },
      code: { '/llms.txt': (res) => res.writeHead(500).end('boom') },
      observer: { '/llms.txt': (res) => { hold = res; } },
      continuum: { '/llms.txt': (res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '900000' }).end() },
    };
    for (const [id, routes] of Object.entries(plans)) {
      const s = appServer(routes);
      servers.push(s);
      port[id] = await s.listen();
    }
    k = await createTestKernel({
      plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, {
        plugin: gatewayRunsPlugin,
        config: { docs: { apps: Object.fromEntries(Object.entries(port).map(([id, p]) => [id, `http://127.0.0.1:${p}`])), maxAppCorpusBytes: 8000, appFetchTimeoutMs: 500 } },
      }],
    });
  });
  after(async () => {
    (hold as http.ServerResponse | null)?.destroy();
    await k?.stop();
    for (const s of [...servers, target]) await s.close();
  });

  const refusal = async (app: string) => {
    const res = await k.inject({ url: `/api/gateway/docs/corpus?app=${app}`, token: k.adminToken });
    expect(res.statusCode, res.body).to.equal(404);
    return res.json<Refusal>().detail;
  };

  it('a redirect is never followed', async () => {
    const detail = await refusal('flow');
    expect(detail.message).to.equal(`AbstractFlow on port ${port.flow} redirects /llms.txt elsewhere (Keel never follows it), so it does not serve its documentation (llms.txt).`);
    expect(target.hits['/secret'] ?? 0).to.equal(0);
  });

  it('an error status names the status', async () => {
    expect((await refusal('code')).message).to.equal(`AbstractCode on port ${port.code} answered 500 to /llms.txt, so it does not serve its documentation (llms.txt).`);
  });

  it('an app that never answers is given up on after docs.appFetchTimeoutMs', async () => {
    const detail = await refusal('observer');
    expect(detail.reason_code).to.equal('app_not_running');
    expect(detail.message).to.contain('within 500 ms (gateway-runs setting docs.appFetchTimeoutMs)');
  });

  it('a declared length above the cap is refused before reading', async () => {
    expect((await refusal('continuum')).message).to.contain('offers an llms.txt of 900000 bytes, above the 8000-byte limit');
  });
});

describe('docs corpus and bundle are generated reproducibly', function () {
  this.timeout(60_000);
  it('llms.txt (checkout and packaged copy) is what tools/build-llms-txt.mjs makes from the READMEs', () => {
    // --check exits 1 naming the stale copy; execFileSync throws then.
    execFileSync(process.execPath, [path.join(repoRoot, 'tools', 'build-llms-txt.mjs'), '--check'], { cwd: repoRoot, stdio: 'pipe' });
    expect(readFileSync(path.join(repoRoot, 'plugins', 'gateway-runs', 'docs', 'llms.txt'), 'utf8')).to.equal(readFileSync(path.join(repoRoot, 'llms.txt'), 'utf8'));
  });

  it('the shipped docs-qa .flow is byte for byte what tools/pack-bundle.mjs packs from bundles-src/docs-qa', () => {
    const out = tempDir('keel-docs-pack-');
    try {
      const packed = path.join(out.dir, 'docs-qa.flow');
      execFileSync(process.execPath, [path.join(repoRoot, 'tools', 'pack-bundle.mjs'), path.join(repoRoot, 'plugins', 'gateway-runs', 'bundles-src', 'docs-qa'), packed], { cwd: repoRoot, stdio: 'pipe' });
      expect(readFileSync(packed).equals(readFileSync(path.join(repoRoot, 'plugins', 'gateway-runs', 'bundles', 'docs-qa@0.1.2.flow')))).to.equal(true);
    } finally {
      out.remove();
    }
  });
});
