/**
 * The relay profile on a real `keel serve --config config/relay.json` process (issue 16 item 5):
 * the token file is created, `/v1/*` needs it, status answers with it; and `keel relay
 * status|doctor|models|accounts refresh` (reference §6) against that process and without one.
 */
import { statSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { runKeel, startServer, type ServerProcess } from './helpers/cli.js';
import { repoRoot, tempDir } from './helpers/paths.js';
import { RelayUpstream } from './helpers/relay-upstream.js';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('relay profile on a real keel serve process, and keel relay', function () {
  this.timeout(180_000);
  let tmp: ReturnType<typeof tempDir>;
  let server: ServerProcess | undefined;
  let port: number;
  let env: NodeJS.ProcessEnv;
  const relayConfig = path.join(repoRoot, 'config', 'relay.json');
  const args = (...words: string[]) => [...words, '--config', relayConfig, '--data-dir', tmp.dir];

  before(async () => {
    tmp = tempDir();
    port = await freePort();
    env = { KEEL_PORT: String(port), RELAY_TOKEN: '' };
    server = await startServer(['--config', relayConfig, '--data-dir', tmp.dir], env);
  });
  after(async () => {
    await server?.stop();
    tmp?.remove();
  });

  const tokenFile = () => path.join(tmp.dir, 'plugins', 'relay', 'relay-token');

  it('creates the token file (0600) at first start, answers 401 without it and the status with it', async () => {
    expect(statSync(tokenFile()).mode & 0o777).to.equal(0o600);
    const token = readFileSync(tokenFile(), 'utf8').trim();
    const anonymous = await fetch(`${server!.url}/v1/relay/status`);
    expect(anonymous.status).to.equal(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).to.equal('invalid_api_key');
    expect((await fetch(`${server!.url}/v1/unknown`)).status).to.equal(401);
    const status = await fetch(`${server!.url}/v1/relay/status`, { headers: { authorization: `Bearer ${token}` } });
    expect(status.status).to.equal(200);
    expect(((await status.json()) as { object: string }).object).to.equal('relay.status');
  });

  it('keel relay status --json reports the base URL of the config, the token and its source without a running relay being asked', async () => {
    const result = await runKeel(args('relay', 'status', '--json'), env);
    expect(result.code, result.stderr).to.equal(0);
    const report = JSON.parse(result.stdout) as { relay: Record<string, unknown>; client: { base_url: string }; next_steps: string[] };
    expect(report.relay.base_url).to.equal(`http://127.0.0.1:${port}/v1`);
    expect(report.relay.token_source).to.equal('file');
    expect(report.relay.token_file).to.equal(tokenFile());
    expect(report.relay.rate_limit).to.equal('120/min + burst 40');
    expect(result.stdout).not.to.contain(readFileSync(tokenFile(), 'utf8').trim());
    const human = await runKeel(args('relay', 'status'), env);
    expect(human.stdout).to.contain('Keel Relay Status').and.to.contain('Next steps');
  });

  it('keel relay models and accounts refresh call the running relay with the stored token (never a 401)', async () => {
    for (const words of [['models'], ['models', '--json'], ['accounts', 'refresh']]) {
      const result = await runKeel(args('relay', ...words), env);
      expect(`${result.stdout}${result.stderr}`, words.join(' ')).not.to.match(/No running relay|\(401\)/);
      if (result.code !== 0) expect(result.stderr, words.join(' ')).to.match(/(Model listing|Refresh) failed \((404|5\d\d)\)/);
    }
  });

  it('keel relay doctor --skip-response passes without accounts (exit 0) and says so in JSON', async () => {
    const result = await runKeel(args('relay', 'doctor', '--skip-response', '--json'), env);
    expect(result.code, result.stdout + result.stderr).to.equal(0);
    const report = JSON.parse(result.stdout) as { ok: boolean; checks: Array<{ name: string; status: string }> };
    expect(report.ok).to.equal(true);
    expect(report.checks.map((c) => c.name)).to.include.members(['config', 'relay_token', 'upstream_auth', 'upstream_response']);
    expect(report.checks.find((c) => c.name === 'relay_token')!.status).to.equal('pass');
  });

  it('refuses unknown subcommands and misplaced flags as usage errors (exit 2)', async () => {
    expect((await runKeel(args('relay', 'restart'), env)).code).to.equal(2);
    expect((await runKeel(args('relay', 'models', '--skip-response'), env)).code).to.equal(2);
    expect((await runKeel(args('relay'), env)).code).to.equal(2);
  });

  it('says plainly that no relay runs when models or accounts refresh find none (exit 1)', async () => {
    await server!.stop();
    server = undefined;
    const models = await runKeel(args('relay', 'models'), env);
    expect(models.code).to.equal(1);
    expect(models.stderr).to.contain(`No running relay at http://127.0.0.1:${port}/v1.`);
    const refresh = await runKeel(args('relay', 'accounts', 'refresh'), env);
    expect(refresh.code).to.equal(1);
    expect(refresh.stderr).to.contain('holds live in the relay process\'s memory');
  });
});

describe('keel relay doctor against upstream accounts', function () {
  this.timeout(180_000);
  let tmp: ReturnType<typeof tempDir>;
  const upstream = new RelayUpstream();

  before(async () => {
    tmp = tempDir();
    upstream.account('good-key', { models: ['gpt-test', 'gpt-other'], replies: [{ text: 'ok' }] });
    await upstream.start();
  });
  after(async () => {
    await upstream.stop();
    tmp?.remove();
  });

  const configWith = (accounts: unknown[]) => {
    const file = path.join(tmp.dir, 'relay.json');
    writeFileSync(file, JSON.stringify({ server: { port: 0, logLevel: 'warn' }, plugins: [{ use: path.join(repoRoot, 'plugins', 'relay', 'dist', 'index.js'), config: { hosted: { accounts } } }] }));
    return file;
  };

  it('checks each account, the catalog and one streamed answer: all pass with a good key (exit 0)', async () => {
    const file = configWith([{ slug: 'main', baseUrl: upstream.url, apiKey: 'good-key' }]);
    const result = await runKeel(['relay', 'doctor', '--json', '--config', file, '--data-dir', path.join(tmp.dir, 'data')], { RELAY_TOKEN: '' });
    expect(result.code, result.stdout + result.stderr).to.equal(0);
    const report = JSON.parse(result.stdout) as { checks: Array<{ name: string; status: string; message: string }> };
    const byName = Object.fromEntries(report.checks.map((c) => [c.name, c]));
    expect(byName.upstream_auth!.status).to.equal('pass');
    expect(byName.upstream_models!.message).to.contain('gpt-test');
    expect(byName.upstream_response!.status, byName.upstream_response!.message).to.equal('pass');
    expect(upstream.generations('good-key').length).to.be.greaterThan(0);
  });

  it('fails a dead standby account on its own check (exit 1), and skips the answer with --skip-response', async () => {
    const file = configWith([{ slug: 'main', baseUrl: upstream.url, apiKey: 'good-key' }, { slug: 'standby', baseUrl: upstream.url, apiKey: 'revoked-key' }]);
    const before = upstream.generations().length;
    const result = await runKeel(['relay', 'doctor', '--skip-response', '--json', '--config', file, '--data-dir', path.join(tmp.dir, 'data')], { RELAY_TOKEN: '' });
    expect(result.code, result.stdout + result.stderr).to.equal(1);
    const report = JSON.parse(result.stdout) as { ok: boolean; checks: Array<{ name: string; status: string }> };
    expect(report.ok).to.equal(false);
    expect(report.checks.find((c) => c.name === 'upstream_auth:main')!.status).to.equal('pass');
    expect(report.checks.find((c) => c.name === 'upstream_auth:standby')!.status).to.equal('fail');
    expect(report.checks.find((c) => c.name === 'upstream_response')!.status).to.equal('skip');
    expect(upstream.generations().length).to.equal(before);
  });
});

describe('keel relay models and accounts refresh against a running relay with an upstream account', function () {
  this.timeout(180_000);
  let tmp: ReturnType<typeof tempDir>;
  let server: ServerProcess | undefined;
  let file: string;
  const upstream = new RelayUpstream();

  before(async () => {
    tmp = tempDir();
    upstream.account('models-key', { models: ['gpt-test', 'gpt-other'] });
    await upstream.start();
    const port = await freePort();
    file = path.join(tmp.dir, 'relay.json');
    writeFileSync(file, JSON.stringify({
      server: { port, logLevel: 'warn' },
      plugins: [{ use: path.join(repoRoot, 'plugins', 'relay', 'dist', 'index.js'), config: { hosted: { accounts: [{ email: 'main@example.com', baseUrl: upstream.url, apiKey: 'models-key' }] }, cli: { enabled: false } } }],
    }));
    server = await startServer(['--config', file, '--data-dir', path.join(tmp.dir, 'data')], { RELAY_TOKEN: '' });
  });
  after(async () => {
    await server?.stop();
    await upstream.stop();
    tmp?.remove();
  });

  const relay = (...words: string[]) => runKeel(['relay', ...words, '--config', file, '--data-dir', path.join(tmp.dir, 'data')], { RELAY_TOKEN: '' });

  it('models lists the relay\'s catalog by provider, and --json prints the raw list', async () => {
    const human = await relay('models');
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.contain('Models').and.to.contain('gpt-test').and.to.contain('gpt-other');
    const raw = await relay('models', '--json');
    expect(raw.code, raw.stderr).to.equal(0);
    expect((JSON.parse(raw.stdout) as { data: Array<{ id: string }> }).data.map((m) => m.id)).to.include.members(['gpt-test', 'gpt-other']);
  });

  it('accounts refresh prints each account as available', async () => {
    const result = await relay('accounts', 'refresh');
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.contain('Accounts Refreshed').and.to.match(/main(@example\.com)?[^:]*: available/);
  });

  it('--url names another relay: one that does not answer is "No running relay"', async () => {
    const port = await freePort();
    const result = await relay('models', '--url', `http://127.0.0.1:${port}/v1`);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.contain(`No running relay at http://127.0.0.1:${port}/v1.`);
  });
});
