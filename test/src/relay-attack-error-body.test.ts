/**
 * Attack: an upstream that answers an HTTP error and then streams its error body without end must
 * not hold the relay's call (and the caller's slot): the relay reads what it needs to classify the
 * error, closes the response and answers with the upstream's status.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { post, startRelay, type RelayKernel } from './helpers/relay-hosted.js';

describe('relay attack: an upstream error body without end', function () {
  this.timeout(120_000);
  let server: Server;
  let relay: RelayKernel;
  const open = new Set<ServerResponse>();

  before(async () => {
    server = createServer((req, res) => {
      if (req.url?.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-test', object: 'model' }] }));
        return;
      }
      res.writeHead(500, { 'content-type': 'text/plain' });
      open.add(res);
      res.on('close', () => open.delete(res));
      const piece = 'z'.repeat(16 * 1024);
      const timer = setInterval(() => {
        if (res.destroyed) clearInterval(timer);
        else res.write(piece);
      }, 5);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    relay = await startRelay([{ apiKey: 'key-a', baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }], { hosted: { requestTimeoutSeconds: 600 } });
  });
  after(async () => {
    await relay?.kernel.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('answers with the upstream status once it read enough of the body', async () => {
    const answer = await post(relay, '/chat/completions', { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.status).to.equal(500);
    expect((answer.json.error as { message: string }).message).to.match(/^z+$/);
  });
});
