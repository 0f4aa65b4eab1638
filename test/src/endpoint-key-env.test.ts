/**
 * An inference endpoint whose `apiKeyEnv` names a variable Keel takes out of the environment at
 * start (a `KEEL_*` secret name) would silently send no key: the server says so at start instead.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, type ServerProcess } from './helpers/cli.js';
import { tempDir } from './helpers/paths.js';

describe('inference endpoints: apiKeyEnv naming a KEEL_* secret, on a real keel serve process', function () {
  this.timeout(120_000);
  const tmp = tempDir();
  let server: ServerProcess | undefined;
  after(async () => {
    await server?.stop('SIGKILL');
    tmp.remove();
  });

  it('warns at start that the variable is not set, naming the endpoint and the variable', async () => {
    const config = path.join(tmp.dir, 'keel.json');
    writeFileSync(config, JSON.stringify({
      server: { port: 0, logLevel: 'warn' },
      plugins: [{ use: '@keel/plugin-inference', config: { endpoints: [{ name: 'remote', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'KEEL_REMOTE_API_KEY', models: ['m'] }] } }],
    }));
    server = await startServer(['--config', config, '--data-dir', path.join(tmp.dir, 'data')], { KEEL_REMOTE_API_KEY: 'sk-test-0123456789' });
    await server.waitFor(/"endpoint":"remote".*"apiKeyEnv":"KEEL_REMOTE_API_KEY".*endpoint api key variable is not set/);
  });
});
