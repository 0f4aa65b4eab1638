import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { probePlugin } from './fixtures/kernel-probe-plugin.js';

describe('HTTP conventions: validation, errors, unknown routes', () => {
  let kernel: TestKernel;
  before(async () => {
    // Silent: the 500 test logs an error on purpose.
    kernel = await createTestKernel({ plugins: [probePlugin], config: { server: { logLevel: 'silent' } } });
  });
  after(() => kernel.stop());

  const echo = (payload: unknown, url = '/api/gateway/probe/echo/7?verbose=true') =>
    kernel.inject({ method: 'POST', url, token: kernel.adminToken, payload });

  it('validates params, query and body from the route schemas and coerces URL strings', async () => {
    const res = await echo({ name: 'a', count: 2, tags: ['x'] });
    expect(res.statusCode).to.equal(201);
    expect(res.json()).to.deep.equal({ id: 7, verbose: true, body: { name: 'a', count: 2, tags: ['x'] }, account: 'admin' });
  });

  it('answers 400 naming the field for a missing, mistyped, nested or unknown body field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ count: 1 }, 'body.name'],
      [{ name: 'a', count: 'many' }, 'body.count'],
      [{ name: 'a', count: 1, nested: { flag: 'yes' } }, 'body.nested.flag'],
      [{ name: 'a', count: 1, tags: ['ok', 3] }, 'body.tags[1]'],
      [{ name: 'a', count: 1, extra: true }, 'body.extra'],
    ];
    for (const [payload, field] of cases) {
      const res = await echo(payload);
      expect(res.statusCode, JSON.stringify(payload)).to.equal(400);
      const detail = res.json<{ detail: { reason_code: string; message: string; field: string } }>().detail;
      expect(detail.reason_code).to.equal('invalid_request');
      expect(detail.field).to.equal(field);
      expect(detail.message).to.contain(field);
    }
  });

  it('reports every problem of a body at once', async () => {
    const res = await echo({ count: 'x', extra: 1 });
    const message = res.json<{ detail: { message: string } }>().detail.message;
    expect(message).to.contain('body.name').and.contain('body.count').and.contain('body.extra');
  });

  it('answers 400 naming the parameter for bad path and query values', async () => {
    const badPath = await echo({ name: 'a', count: 1 }, '/api/gateway/probe/echo/0');
    expect(badPath.statusCode).to.equal(400);
    expect(badPath.json<{ detail: { field: string } }>().detail.field).to.equal('params.id');
    const badQuery = await echo({ name: 'a', count: 1 }, '/api/gateway/probe/echo/3?verbose=perhaps');
    expect(badQuery.statusCode).to.equal(400);
    expect(badQuery.json<{ detail: { field: string } }>().detail.field).to.equal('query.verbose');
  });

  it('answers 400 for malformed JSON and for a body that is not JSON', async () => {
    const malformed = await kernel.inject({ method: 'POST', url: '/api/gateway/probe/echo/1', token: kernel.adminToken, payload: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(malformed.statusCode).to.equal(400);
    expect(malformed.json<{ detail: { reason_code: string; message: string } }>().detail).to.include({ reason_code: 'invalid_json' });
    const text = await kernel.inject({ method: 'POST', url: '/api/gateway/probe/echo/1', token: kernel.adminToken, payload: 'name=a', headers: { 'content-type': 'text/plain' } });
    expect(text.statusCode).to.equal(400);
    expect(text.json<{ detail: { message: string } }>().detail.message).to.match(/JSON body/);
  });

  it('answers 413 for a body over the size limit', async () => {
    const big = await kernel.inject({ method: 'POST', url: '/api/gateway/probe/echo/1', token: kernel.adminToken, payload: { name: 'x'.repeat(11 * 1024 * 1024), count: 1 } });
    expect(big.statusCode).to.equal(413);
  });

  it('never leaks a stack or internal message on a 500, and gives the request id instead', async () => {
    const res = await kernel.inject({ url: '/api/gateway/probe/crash', token: kernel.adminToken, headers: { 'x-request-id': 'req-123' } });
    expect(res.statusCode).to.equal(500);
    expect(res.body).to.not.contain('passwd').and.not.contain('at ');
    expect(res.json<{ detail: { message: string } }>().detail.message).to.contain('req-123');
    expect(res.headers['x-request-id']).to.equal('req-123');
  });

  it('answers 405 with an Allow header for a known path and a wrong method, 404 for unknown paths', async () => {
    const wrong = await kernel.inject({ method: 'DELETE', url: '/api/health' });
    expect(wrong.statusCode).to.equal(405);
    expect(String(wrong.headers.allow)).to.contain('GET');
    const unknown = await kernel.inject({ url: '/nowhere' });
    expect(unknown.statusCode).to.equal(404);
    expect(unknown.json<{ detail: { message: string } }>().detail.message).to.contain('/nowhere');
  });
});
