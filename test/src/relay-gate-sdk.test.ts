/**
 * The SDK/kernel extension the relay gate needs: a mount's `guardUnmatched` may name one of its
 * plugin's authenticators, which then guards the unmatched paths under the prefix (its own 401s,
 * its side effects, the response it may hold until it ends); naming no such authenticator is a boot error.
 */
import { expect } from 'chai';
import { defineAuthenticator, definePlugin, route, unauthorized } from '@keel/plugin-sdk';
import { createTestKernel } from '@keel/plugin-sdk/testing';

function pluginGuardedBy(name: string) {
  const seen: string[] = [];
  let open = 0;
  const keyCheck = defineAuthenticator({
    name: 'fixtureKey',
    scheme: { type: 'apiKey', in: 'header', name: 'x-fixture-key' },
    authenticate(credential, request, response) {
      seen.push(request.url ?? '');
      if (credential !== 'right') throw unauthorized('Send the fixture key in x-fixture-key.', { code: 'fixture_key' });
      open += 1;
      response?.once('close', () => (open -= 1));
      return { who: 'fixture' };
    },
  });
  const plugin = definePlugin({
    id: 'guarded-by-authenticator',
    version: '0.0.0',
    sdk: '^1.0.0',
    defaultPrefix: '/fixture',
    guardUnmatched: name,
    setup: () => ({ routes: [route({ method: 'GET', path: '/known', auth: keyCheck, handler: ({ principal }) => ({ who: principal.who }) })] }),
  });
  return { plugin, seen, open: () => open };
}

describe('guardUnmatched naming a plugin authenticator', function () {
  this.timeout(60_000);

  it('asks that authenticator (not the kernel token) on unmatched paths under the prefix, then answers 404/405; the authenticator gets the response', async () => {
    const fixture = pluginGuardedBy('fixtureKey');
    const kernel = await createTestKernel({ plugins: [fixture.plugin], config: { server: { logLevel: 'silent' } } });
    try {
      for (const url of ['/fixture/nope', '//fixture/nope', '/fixture/x/../nope']) {
        const res = await kernel.inject({ url });
        expect(res.statusCode, url).to.equal(401);
        expect(res.json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('fixture_key');
        expect((await kernel.inject({ url, token: kernel.adminToken })).statusCode, `${url} with the kernel token`).to.equal(401);
      }
      expect((await kernel.inject({ url: '/fixture/nope', headers: { 'x-fixture-key': 'right' } })).statusCode).to.equal(404);
      expect((await kernel.inject({ method: 'POST', url: '/fixture/known', headers: { 'x-fixture-key': 'right' } })).statusCode).to.equal(405);
      expect((await kernel.inject({ url: '/fixture/known', headers: { 'x-fixture-key': 'right' } })).statusCode).to.equal(200);
      expect(fixture.seen).to.include('/fixture/nope');
      expect(fixture.open()).to.equal(0);
      // Other prefixes keep their own rules.
      expect((await kernel.inject({ url: '/elsewhere/nope' })).statusCode).to.equal(404);
    } finally {
      await kernel.stop();
    }
  });

  it('is a boot error when no route of the plugin uses an authenticator of that name', async () => {
    const fixture = pluginGuardedBy('noSuchKey');
    const err = await createTestKernel({ plugins: [fixture.plugin], config: { server: { logLevel: 'silent' } } }).then((k) => k.stop().then(() => null), (e: Error) => e);
    expect(err?.message).to.contain("plugin 'guarded-by-authenticator' guards unmatched paths with the authenticator 'noSuchKey', which none of its routes uses as auth");
  });
});
