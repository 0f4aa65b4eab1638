/**
 * `keel hub register`: issues a seat from the data directory with no server running, and the key
 * works on a server started on the same data dir — also for a seat registered while it runs.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { runKeel, startServer } from './helpers/cli.js';
import { tempDir } from './helpers/paths.js';

async function whoami(url: string, key: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/hub/whoami`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('keel hub register', function () {
  // Four keel processes in a row: on a loaded 2-core machine each start takes seconds.
  this.timeout(180_000);
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.remove());

  it('prints a seat key once (default config) that a server on the same data dir accepts; --operator makes an operator', async () => {
    const lead = await runKeel(['hub', 'register', 'lead', '--operator', '--about', 'runs the hub', '--mission', 'keep it tidy', '--data-dir', tmp.dir]);
    expect(lead.code, lead.stderr).to.equal(0);
    expect(lead.stdout).to.match(/^agora_[0-9a-f]{48}\n$/);
    const server = await startServer(['--port', '0', '--data-dir', tmp.dir, '--plugins', 'hub']);
    try {
      const me = await whoami(server.url, lead.stdout.trim());
      expect(me.status).to.equal(200);
      expect(me.body).to.deep.include({ id: 'lead', operator: true, about: 'runs the hub', mission: 'keep it tidy' });

      const helper = await runKeel(['hub', 'register', 'helper', '--data-dir', tmp.dir]);
      expect(helper.code, helper.stderr).to.equal(0);
      const seat = await whoami(server.url, helper.stdout.trim());
      expect(seat.status, 'registered while the server runs').to.equal(200);
      expect(seat.body).to.deep.include({ id: 'helper', operator: false });

      const again = await runKeel(['hub', 'register', 'helper', '--data-dir', tmp.dir]);
      expect(again.code).to.equal(1);
      expect(again.stdout).to.equal('');
      expect(again.stderr).to.contain("agent 'helper' already exists");
    } finally {
      await server.stop();
    }
  });

  it('refuses bad usage (exit 2), a bad id (exit 1), and a config without the hub plugin (exit 2)', async () => {
    expect((await runKeel(['hub', 'register', '--data-dir', tmp.dir])).code).to.equal(2);
    expect((await runKeel(['hub', 'enlist', 'x', '--data-dir', tmp.dir])).code).to.equal(2);
    const badId = await runKeel(['hub', 'register', 'Not An Id', '--data-dir', tmp.dir]);
    expect(badId.code).to.equal(1);
    expect(badId.stderr).to.contain("agent id 'Not An Id' is not valid");
    const config = path.join(tmp.dir, 'no-hub.json');
    writeFileSync(config, JSON.stringify({ plugins: [] }));
    const none = await runKeel(['hub', 'register', 'x', '--config', config, '--data-dir', tmp.dir]);
    expect(none.code).to.equal(2);
    expect(none.stderr).to.contain(`${config} loads no plugin that offers 'hub'`);
    expect((await runKeel(['--help'])).stdout).to.contain('keel hub register <id>');
  });
});
