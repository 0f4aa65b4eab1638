import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';

/**
 * Attack (issue 12): hostile bodies sent by a non-admin to the workspace policy routes get a 400
 * sentence, never a 500 (a crash of the request) and never a hang.
 */
describe('attack: hostile bodies to the workspace policy routes', function () {
  this.timeout(180_000);
  let k: TestKernel;
  let bob = '';
  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    const created = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account: 'bob' } });
    bob = created.json<{ token: { token: string } }>().token.token;
  });
  after(() => k?.stop());

  /** A JSON text nested `depth` arrays deep (sent raw: building it as a value would itself be deep). */
  const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const raw = (method: 'PUT' | 'POST', url: string, json: string, token = bob) => k.inject({ method, url, token, payload: json, headers: { 'content-type': 'application/json' } });

  it('answers a deeply nested posture, mode or path with 400, not 500', async () => {
    const d = deep(20_000);
    const bodies: Array<['PUT' | 'POST', string, string, string?]> = [
      ['PUT', '/api/gateway/sessions/s1/workspaces', `{"posture": ${d}}`],
      ['PUT', '/api/gateway/sessions/s1/workspaces', `{"posture": "allowed_only", "default_mode": ${d}}`],
      ['PUT', '/api/gateway/sessions/s1/workspaces', `{"posture": "allowed_only", "folders": [{"path": "/tmp", "mode": ${d}}]}`],
      ['PUT', '/api/gateway/sessions/s1/workspaces', `{"posture": "allowed_only", "folders": [{"path": ${d}, "mode": "ro"}]}`],
      ['POST', '/api/gateway/workspace/effective/me', `{"workspace": {"posture": ${d}}}`],
      ['POST', '/api/gateway/workspace/path-check', `{"path": ${d}}`],
      ['PUT', '/api/gateway/workspace/policy', `{"posture": ${d}}`, k.adminToken],
      ['PUT', '/api/gateway/workspace/policy/bob', `{"default_mode": ${d}}`, k.adminToken],
    ];
    for (const [method, url, json, token] of bodies) {
      const res = await raw(method, url, json, token);
      expect(res.statusCode, `${method} ${url} ${json.slice(0, 40)}: ${res.body.slice(0, 300)}`).to.be.oneOf([200, 400, 413]);
    }
  });

  it("answers odd account names, session ids and ?account= values with a sentence, never a 500, and never another account's level", async () => {
    const admin = k.adminToken;
    const names = ['%00', ':', 'bob:', ':bob', 'default:', 'a:b:c', 'me%2F..', 'me/', '%E2%80%AE', 'ME', 'Me', 'self', '__proto__', 'constructor', 'x'.repeat(300), 'tenant:me', 'default:me'];
    for (const name of names) {
      for (const url of [`/api/gateway/workspace/policy/${name}`, `/api/gateway/workspace/effective/${name}`]) {
        for (const token of [bob, admin]) {
          const res = await k.inject({ url, token });
          expect(res.statusCode, `${url} ${res.body.slice(0, 200)}`).to.be.oneOf([200, 400, 403, 404, 410]);
          if (token === bob && res.statusCode === 200) expect(res.json<{ account: string }>().account, `${url}: ${res.body.slice(0, 300)}`).to.match(/:bob$/);
        }
      }
      const session = await k.inject({ url: `/api/gateway/sessions/s1/workspaces?account=${name}`, token: bob });
      expect(session.statusCode, `?account=${name}: ${session.body.slice(0, 200)}`).to.be.oneOf([200, 400, 403, 404, 410]);
      if (session.statusCode === 200) expect(session.json<{ account: string }>().account).to.match(/:bob$/);
    }
    for (const id of ['..', '%2e%2e', 'a%2Fb', '%00', 'x'.repeat(300), '__proto__']) {
      for (const url of [`/api/gateway/sessions/${id}/workspaces`, `/api/gateway/workspace/effective/me?session=${id}`]) {
        const res = await k.inject({ url, token: bob });
        expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).to.be.oneOf([200, 400, 404]);
      }
      const put = await k.inject({ method: 'PUT', url: `/api/gateway/sessions/${id}/workspaces`, token: bob, payload: { posture: 'allowed_only', folders: [] } });
      expect(put.statusCode, `PUT ${id}: ${put.body.slice(0, 200)}`).to.be.oneOf([200, 400, 404]);
    }
  });
});
