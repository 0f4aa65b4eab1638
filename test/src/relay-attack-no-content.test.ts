/**
 * Attack: an upstream that streams role-only chunks forever (each small, none with content) must not
 * make the relay hold them without bound while it waits for the first content (reference §2.8):
 * after 1000 such events the call fails with 502 upstream_no_content and the relay serves on.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { post, startRelay, type RelayKernel } from './helpers/relay-hosted.js';

describe('relay attack: an upstream that never sends content', function () {
  this.timeout(120_000);
  let server: Server;
  let relay: RelayKernel;
  let sent = 0;

  before(async () => {
    server = createServer((req, res) => {
      if (req.url?.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-test', object: 'model' }] }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const role = `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'gpt-test', choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }] })}\n\n`;
      // Endless: writes until the relay closes the connection (bounded here so a broken relay cannot hang the test).
      const pump = () => {
        while (!res.destroyed && sent < 200_000) {
          sent += 1;
          if (!res.write(role)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => undefined);
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    relay = await startRelay([{ apiKey: 'key-a', baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }]);
  });
  after(async () => {
    await relay?.kernel.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('fails the call with 502 upstream_no_content instead of holding every chunk', async () => {
    const answer = await post(relay, '/chat/completions', { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.status, answer.text.slice(0, 300)).to.equal(502);
    expect((answer.json.error as { code: string }).code).to.equal('upstream_no_content');
  });
});
