/**
 * The status page on a real `keel serve --config config/relay.json` process: the page, its modules
 * and styles are found from the installed plugin (`ui/` beside `dist/`), the landing page links it,
 * and the data it reads answers with the token file's token and refuses without it.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { startServer, type ServerProcess } from './helpers/cli.js';
import { repoRoot, tempDir } from './helpers/paths.js';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('relay status page on a real keel serve process', function () {
  this.timeout(180_000);
  let tmp: ReturnType<typeof tempDir>;
  let server: ServerProcess | undefined;

  before(async () => {
    tmp = tempDir();
    server = await startServer(['--config', path.join(repoRoot, 'config', 'relay.json'), '--data-dir', tmp.dir], { KEEL_PORT: String(await freePort()), RELAY_TOKEN: '' });
  });
  after(async () => {
    await server?.stop();
    tmp?.remove();
  });

  it('serves the page, its modules and styles, and links it from /', async () => {
    const page = await fetch(`${server!.url}/relay/ui/`);
    expect(page.status).to.equal(200);
    expect(await page.text()).to.include('<script type="module" src="./dist/main.js"></script>');
    for (const file of ['dist/main.js', 'dist/status-page.js', 'styles/full.css', 'styles/components.css', 'favicon.svg']) {
      expect((await fetch(`${server!.url}/relay/ui/${file}`)).status, file).to.equal(200);
    }
    expect(await (await fetch(`${server!.url}/relay/ui/api.json`)).json()).to.deep.equal({ api_base: '/v1' });
    expect(await (await fetch(`${server!.url}/`)).text()).to.include('href="/relay/ui/"');
  });

  it('the traffic it shows needs the token file\'s token', async () => {
    const token = readFileSync(path.join(tmp.dir, 'plugins', 'relay', 'relay-token'), 'utf8').trim();
    expect((await fetch(`${server!.url}/v1/relay/traffic`)).status).to.equal(401);
    const res = await fetch(`${server!.url}/v1/relay/traffic?limit=5`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { object: string; limit: number }).limit).to.equal(5);
  });
});
