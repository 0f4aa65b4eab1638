/**
 * Walks `/openapi.json` of a kernel with config/default.json's plugins and sends every operation bad
 * input: malformed and deeply nested bodies, wrong types, over-long ids in path params, queries and
 * bodies, control and non-ASCII bytes in paths, truncated and empty multipart uploads, each without a
 * token, with the admin token, with a non-admin account's token and (under /hub) with a seat key.
 * "Never 500": any 5xx fails the test (but a deliberate 501 `not_configured`), listing the operation and the input. FUZZ_DEBUG=1 prints every answer.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { repoRoot } from './helpers/paths.js';

type Schema = Record<string, unknown>;
interface Operation {
  parameters?: Array<{ name: string; in: 'path' | 'query'; schema?: Schema }>;
  requestBody?: { content: Record<string, { schema?: Schema }> };
}

/** Longer than LMDB's key limit (1,978 bytes) on its own. */
const LONG = 'a'.repeat(2_100);
const PLAIN = 'fuzz';
const DEPTH = 2_000;

const deepArray = () => `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
const deepObject = () => `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;

/** Ids of things that exist (a run, a channel, a seat, a message), by parameter or field name, so probes get past "not found". */
const known: Record<string, string> = {};

/** A value shaped like `schema`, with `str` for every string (or, for the plain probe, a real id where the name has one). */
function sample(schema: Schema | undefined, str: string, depth = 0, name = ''): unknown {
  if (str === PLAIN && known[name]) return known[name];
  if (!schema || depth > 6) return str;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const alt = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alt?.length) return sample(alt[0], str, depth + 1);
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : schema.type as string | undefined;
  switch (type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, sample(v, str, depth + 1, k)]));
    }
    case 'array': return [sample(schema.items as Schema | undefined, str, depth + 1)];
    case 'integer': case 'number': return 1;
    case 'boolean': return true;
    default: return str;
  }
}

/** The same shape with every field (and every free-form object inside it) nested `DEPTH` levels deep. */
function deepFields(schema: Schema | undefined, depth = 0): unknown {
  const props = (schema?.properties ?? {}) as Record<string, Schema>;
  if (!Object.keys(props).length || depth > 4) return 'DEEP';
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, v.properties ? deepFields(v, depth + 1) : 'DEEP']));
}

/** The same shape with every field given a value of the wrong type. */
function wrongTypes(schema: Schema | undefined): unknown {
  const props = (schema?.properties ?? {}) as Record<string, Schema>;
  return Object.fromEntries(Object.keys(props).map((k) => [k, props[k]?.type === 'string' ? { nested: [1] } : 'not-this-type']));
}

interface Probe {
  label: string;
  path: string;
  body?: string | Buffer;
  contentType?: string;
}

function probesFor(pathTemplate: string, method: string, op: Operation): Probe[] {
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const fill = (value: (name: string) => string) => pathTemplate.replace(/\{([^}]+)\}/g, (_, name: string) => value(name));
  const plainParam = (name: string) => String(sample(pathParams.find((p) => p.name === name)?.schema, PLAIN, 0, name));
  const plain = fill(plainParam);
  const probes: Probe[] = [{ label: 'plain', path: plain }];
  if (pathParams.length) {
    probes.push({ label: 'over-long path ids', path: fill(() => LONG) });
    // One at a time, the others real: the long one reaches the store behind the ones that exist.
    for (const p of pathParams) probes.push({ label: `over-long ${p.name}`, path: fill((name) => (name === p.name ? LONG : plainParam(name))) });
    probes.push({ label: 'NUL and non-ASCII path ids', path: fill(() => '%00%C3%A9%FF%0D%0A') });
    probes.push({ label: 'wrong-type path ids', path: fill(() => '-1.5e999') });
  }
  const query = params.filter((p) => p.in === 'query');
  if (query.length) {
    probes.push({ label: 'over-long query', path: `${plain}?${query.map((q) => `${q.name}=${LONG}`).join('&')}` });
    probes.push({ label: 'wrong-type query', path: `${plain}?${query.map((q) => `${q.name}=%00%FF&${q.name}=x`).join('&')}` });
  }
  if (method === 'get' || method === 'delete' || method === 'head') return probes;
  const content = op.requestBody?.content ?? {};
  const json = content['application/json'];
  if (json) {
    const body = (label: string, text: string) => probes.push({ label, path: plain, body: text, contentType: 'application/json' });
    body('malformed JSON', '{"a": [1, 2');
    body('JSON null', 'null');
    body('JSON array', '[1, "x", null]');
    body('JSON string', '"text"');
    body('deep array', deepArray());
    body('deep object', deepObject());
    body('deep values in every field', JSON.stringify(deepFields(json.schema)).replaceAll('"DEEP"', deepObject()));
    body('wrong types', JSON.stringify(wrongTypes(json.schema)));
    body('over-long strings and ids', JSON.stringify(sample(json.schema, LONG)));
    const plainBody = sample(json.schema, PLAIN);
    if (plainBody && typeof plainBody === 'object' && !Array.isArray(plainBody)) {
      body('plain body', JSON.stringify(plainBody));
      for (const [k, v] of Object.entries(plainBody)) {
        if (typeof v === 'string') body(`over-long body ${k}`, JSON.stringify({ ...plainBody, [k]: LONG }));
      }
    }
    body('NUL and lone surrogate strings', JSON.stringify(sample(json.schema, '\u0000\ud800x')));
    probes.push({ label: 'not JSON', path: plain, body: 'a=b', contentType: 'text/plain' });
  }
  if (content['multipart/form-data']) {
    const boundary = 'fuzzboundary';
    const part = (name: string, filename: string, data: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n${data}\r\n`;
    const type = `multipart/form-data; boundary=${boundary}`;
    probes.push({ label: 'truncated multipart', path: plain, body: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.flow"\r\n\r\nPK\u0003\u0004abc`, contentType: type });
    probes.push({ label: 'empty file', path: plain, body: `${part('file', 'a.flow', '')}--${boundary}--\r\n`, contentType: type });
    probes.push({ label: 'garbage file', path: plain, body: `${part('file', 'a.flow', 'not a zip')}--${boundary}--\r\n`, contentType: type });
    probes.push({ label: 'no boundary', path: plain, body: 'xx', contentType: 'multipart/form-data' });
  }
  if (content['application/octet-stream']) {
    probes.push({ label: 'empty bytes', path: plain, body: Buffer.alloc(0), contentType: 'application/octet-stream' });
  }
  return probes;
}

describe('fuzzing every operation of /openapi.json (never a 5xx)', function () {
  this.timeout(600_000);
  let kernel: TestKernel;
  let base: string;

  before(async () => {
    const defaults = JSON.parse(readFileSync(path.join(repoRoot, 'config', 'default.json'), 'utf8')) as { plugins: unknown[] };
    // Silent: a 5xx is reported by the test itself; a generous auth-failure burst so no probe is refused for its source.
    kernel = await createTestKernel({ baseDir: repoRoot, config: { server: { logLevel: 'silent' }, plugins: defaults.plugins } });
    base = (await kernel.listen()).url;
  });
  after(() => kernel?.stop());

  it('answers every malformed request with a status below 500', async () => {
    const doc = await (await fetch(`${base}/openapi.json`)).json() as { paths: Record<string, Record<string, Operation>> };
    const seat = await fetch(`${base}/hub/agents`, {
      method: 'POST', headers: { authorization: `Bearer ${kernel.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'fuzzer', operator: true }),
    });
    const seatKey = ((await seat.json()) as { api_key?: string }).api_key;
    expect(seatKey, 'a hub seat key').to.be.a('string');
    // Things that exist, so that probes reach past "not found" into the handlers and the store.
    const auth = { authorization: `Bearer ${kernel.adminToken}`, 'content-type': 'application/json' };
    const flow = { id: 'waits', nodes: [node({ id: 'start', type: 'on_flow_start' }), node({ id: 'wait', type: 'wait_event', data: { eventKey: 'never' } })], edges: edges('start -> wait') };
    const upload = multipart({}, { name: 'waits.flow', bytes: bundle('waits', '1.0.0', flow) });
    expect((await fetch(`${base}/api/gateway/bundles/upload`, { method: 'POST', headers: { authorization: auth.authorization, ...upload.headers }, body: upload.payload })).status).to.equal(201);
    const run = await fetch(`${base}/api/gateway/runs/start`, { method: 'POST', headers: auth, body: JSON.stringify({ bundle_id: 'waits', input_data: {} }) });
    const runId = ((await run.json()) as { run_id: string }).run_id;
    const posted = await fetch(`${base}/hub/channels/commons/messages`, { method: 'POST', headers: { ...auth, authorization: `Bearer ${seatKey}` }, body: JSON.stringify({ body: 'fuzz me' }) });
    const messageId = ((await posted.json()) as { id: string }).id;
    Object.assign(known, { run_id: runId, parent_run_id: runId, bundle_id: 'waits', bundle_version: '1.0.0', flow_id: 'waits', channel: 'commons', id: messageId, agent: 'fuzzer', agent_id: 'fuzzer', peer: 'fuzzer', account: 'admin' });

    const bob = await fetch(`${base}/api/gateway/admin/users`, { method: 'POST', headers: auth, body: JSON.stringify({ account: 'bob' }) });
    const bobToken = ((await bob.json()) as { token?: { token?: string } }).token?.token;
    expect(bobToken, 'a non-admin token').to.be.a('string');

    // The OpenAI-compatible API starts switched off (a deliberate 503); switch it on to reach its handlers.
    const enabled = await fetch(`${base}/api/gateway/admin/core-endpoint/enable`, { method: 'POST', headers: { authorization: `Bearer ${kernel.adminToken}` } });
    expect(enabled.status, await enabled.text()).to.be.below(300);

    let operations = 0;
    // Operations that switch things off (the OpenAI API) run in a second phase, so the others reach their handlers.
    /** Sends one probe; answers a line describing the failure, or null. */
    const send = async (method: string, template: string, probe: Probe, who: string, token: string | undefined): Promise<string | null> => {
      const headers: Record<string, string> = {};
      if (token) headers.authorization = `Bearer ${token}`;
      if (probe.contentType) headers['content-type'] = probe.contentType;
      const res = await fetch(`${base}${probe.path}`, { method: method.toUpperCase(), headers, body: probe.body, signal: AbortSignal.timeout(120_000) });
      // Streams (SSE) answer at once with their headers; the body is not needed.
      const text = res.headers.get('content-type')?.startsWith('text/event-stream') ? '' : await res.text();
      await res.body?.cancel().catch(() => undefined);
      if (process.env.FUZZ_DEBUG) console.log(res.status, method, probe.path.slice(0, 70), probe.label, who, text.slice(0, 100).replace(/\n/g, ' '));
      const what = `${method.toUpperCase()} ${template} [${probe.label}, ${who}]`;
      if (res.status === 429 && text.includes('too_many_auth_failures')) return `${what} → 429: a probe without a bad key was throttled as a failed sign-in`;
      // 501 `not_configured` is a deliberate answer (issue 17: a voice feature this server is not set up
      // for, such as cloning without a remote, says what to configure); any other 5xx is a failure.
      if (res.status === 501 && text.includes('"not_configured"')) return null;
      return res.status >= 500 ? `${what} → ${res.status} ${text.slice(0, 200)}` : null;
    };

    const phases: Array<Array<() => Promise<string | null>>> = [[], []];
    // Routes the document hides (the legacy redirect, docs assets, the team page) and odd spellings of known paths.
    for (const raw of ['/core/v1/%00', '/core/v1/a%0d%0aSet-Cookie:%20x', '/core/v1/%C3%A9%FF?%00=%FF', '/docs/%00', '/docs/..%2f..%2fpackage.json', '/hub/ui/%00', '/hub/ui/..%2f..%2f..%2fetc%2fpasswd', `/hub/ui/${LONG}`, '//api/gateway/me', '/api/gateway%2fme', '/api/gateway/%2e%2e/%2e%2e/hub', '/%00']) {
      for (const method of ['GET', 'POST', 'OPTIONS']) {
        for (const [who, token] of [['no token', undefined], ['admin', kernel.adminToken]] as const) {
          phases[0]!.push(() => send(method, raw, { label: 'hidden or odd path', path: raw }, who, token));
        }
      }
    }
    for (const [template, methods] of Object.entries(doc.paths)) {
      const jobs = phases[template.endsWith('/disable') ? 1 : 0]!;
      for (const [method, op] of Object.entries(methods)) {
        operations += 1;
        const tokens: Array<[string, string | undefined]> = [['no token', undefined], ['admin', kernel.adminToken], ['non-admin', bobToken]];
        if (template.startsWith('/hub')) tokens.push(['seat', seatKey]);
        for (const probe of probesFor(template, method, op)) {
          for (const [who, token] of tokens) {
            jobs.push(() => send(method, template, probe, who, token));
          }
        }
      }
    }
    expect(operations).to.be.greaterThan(50);
    const failures: string[] = [];
    for (const jobs of phases) {
      let next = 0;
      const worker = async () => {
        while (next < jobs.length) {
          const job = jobs[next++]!;
          const failure = await job().catch((err: unknown) => `a request failed: ${String(err)}`);
          if (failure) failures.push(failure);
        }
      };
      await Promise.all(Array.from({ length: 6 }, worker));
    }
    const total = phases[0]!.length + phases[1]!.length;
    expect(failures, `${failures.length} of ${total} requests answered 5xx:\n${failures.join('\n')}`).to.deep.equal([]);
  });
});
