/**
 * A plugin declares the request headers its clients send (`PluginDefinition.headers`): a browser
 * preflight on an allowed origin is told it may send them, and only when that plugin is loaded
 * (the kernel names no plugin's headers of its own).
 */
import { expect } from 'chai';
import { definePlugin } from '@keel/plugin-sdk';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { hubPlugin } from '@keel/plugin-hub';

const ORIGIN = 'https://app.example.com';

async function allowedHeaders(kernel: TestKernel, url: string): Promise<string[]> {
  const res = await kernel.inject({ method: 'OPTIONS', url, headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-hub-client' } });
  expect(res.statusCode).to.equal(204);
  return String(res.headers['access-control-allow-headers']).split(/,\s*/);
}

describe('request headers a plugin declares', function () {
  this.timeout(60_000);

  it('lets browsers send the hub client header only when the hub plugin is loaded', async () => {
    const withHub = await createTestKernel({ plugins: [hubPlugin], config: { server: { origins: [ORIGIN] } } });
    try {
      expect(await allowedHeaders(withHub, '/hub/whoami')).to.include.members(['authorization', 'content-type', 'x-hub-client', 'x-agora-client']);
    } finally {
      await withHub.stop();
    }
    const without = await createTestKernel({ plugins: [], config: { server: { origins: [ORIGIN] } } });
    try {
      const headers = await allowedHeaders(without, '/api/gateway/me');
      expect(headers).to.include('authorization');
      expect(headers).to.not.include('x-hub-client');
    } finally {
      await without.stop();
    }
  });

  it('refuses a declaration that is not a list of header names', async () => {
    const bad = definePlugin({ id: 'bad-headers', version: '0.1.0', sdk: '^1.0.0', headers: ['x-fine', 'not a header'], setup: () => ({}) });
    let error: Error | undefined;
    await createTestKernel({ plugins: [bad] }).then((k) => k.stop(), (err: Error) => (error = err));
    expect(error?.message).to.contain("plugin 'bad-headers' headers must be a list of HTTP header names");
  });
});
