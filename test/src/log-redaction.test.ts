/**
 * The log (pino behind the SDK's Logger) never shows a token: not the bearer token of a request,
 * not the admin token, not a hub seat key, not an endpoint key, whether a plugin logs the request's
 * headers, a message, an error or a nested field, and whatever the level.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { buildConfig, Kernel } from '@keel/kernel';
import { core, definePlugin, route } from '@keel/plugin-sdk';
import { startServer } from './helpers/cli.js';
import { until } from './helpers/gateway-runs.js';
import { tempDir } from './helpers/paths.js';

const BAD_TOKEN = `keel_${randomBytes(32).toString('base64url')}`;
const ADMIN_TOKEN = `my-own-admin-token-${randomBytes(8).toString('hex')}`;
const SEAT_KEY = `agora_${randomBytes(24).toString('hex')}`;
const ENDPOINT_KEY = `sk-live-${randomBytes(12).toString('hex')}`;

/** A plugin that logs carelessly: the request's headers and URL, a message, an error, nested fields and a child logger's bindings. */
const chattyPlugin = definePlugin({
  id: 'chatty',
  version: '0.1.0',
  sdk: '^1.0.0',
  defaultPrefix: '/chatty',
  deps: { log: core.logger },
  setup({ deps: { log } }) {
    return {
      routes: [
        route({
          method: 'GET',
          path: '/echo',
          auth: 'none',
          handler: (ctx) => {
            const auth = ctx.koa.get('authorization');
            log.info('request', { headers: ctx.koa.headers, url: ctx.koa.url });
            log.warn(`forwarding ${auth} and ${ctx.koa.get('x-seat')}`);
            log.error('upstream failed', { err: new Error(`the upstream refused ${auth}`), context: { endpoint: { apiKey: ENDPOINT_KEY, note: `tried ${ctx.koa.query.token}` } } });
            log.child({ caller: auth }).debug('done', { list: [ctx.koa.get('x-seat'), { api_key: ENDPOINT_KEY }] });
            return { ok: true };
          },
        }),
      ],
    };
  },
});

const SECRETS = { BAD_TOKEN, ADMIN_TOKEN, SEAT_KEY, ENDPOINT_KEY };

function expectNoSecret(text: string): void {
  for (const [name, value] of Object.entries(SECRETS)) expect(text.includes(value), `${name} reached the log`).to.equal(false);
}

describe('log redaction: no token reaches the log output', function () {
  this.timeout(120_000);

  describe('a plugin logging a request carelessly, and a bad bearer token (kernel log sink, level debug)', () => {
    const tmp = tempDir();
    const lines: string[] = [];
    let kernel: Kernel;
    let base: string;
    before(async () => {
      const { config } = buildConfig({ server: { logLevel: 'debug', dataDir: tmp.dir } }, {}, { file: null, baseDir: process.cwd() });
      kernel = await Kernel.boot({ config, mode: 'test', env: { KEEL_ADMIN_TOKEN: ADMIN_TOKEN }, inlinePlugins: [{ plugin: chattyPlugin }], logSink: (line) => lines.push(line) });
      base = `http://127.0.0.1:${(await kernel.listen(0, '127.0.0.1')).port}`;
    });
    after(async () => {
      await kernel?.stop();
      tmp.remove();
    });

    it('refuses a bad bearer token and logs the failure without the token', async () => {
      expect((await fetch(`${base}/api/gateway/me`, { headers: { authorization: `Bearer ${BAD_TOKEN}` } })).status).to.equal(401);
      const failure = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.component === 'auth');
      expect(failure, 'the failure is logged').to.include({ level: 'warn', source: '127.0.0.1' });
      expectNoSecret(lines.join('\n'));
    });

    it('scrubs headers, messages, errors, nested fields and child bindings a plugin logs', async () => {
      const res = await fetch(`${base}/chatty/echo?token=${encodeURIComponent(ADMIN_TOKEN)}`, { headers: { authorization: `Bearer ${BAD_TOKEN}`, 'x-seat': SEAT_KEY, cookie: `session=${ENDPOINT_KEY}` } });
      expect(res.status).to.equal(200);
      const entries = (await until(async () => lines.map((l) => JSON.parse(l) as Record<string, unknown>), (all) => all.some((l) => l.msg === 'done'))).filter((l) => l.plugin === 'chatty');
      expect(entries.map((l) => [l.level, l.msg])).to.deep.equal([
        ['info', 'request'],
        ['warn', 'forwarding Bearer [redacted] and agora_[redacted]'],
        ['error', 'upstream failed'],
        ['debug', 'done'],
      ]);
      const [request, , failed, done] = entries as Array<Record<string, Record<string, unknown>>>;
      expect(request!.headers).to.include({ authorization: '[redacted]', cookie: '[redacted]', 'x-seat': 'agora_[redacted]' });
      expect(request!.url).to.equal('/chatty/echo?token=[redacted]');
      expect(failed!.err).to.include({ type: 'Error', message: 'the upstream refused Bearer [redacted]' });
      expect(failed!.context).to.deep.equal({ endpoint: { apiKey: '[redacted]', note: 'tried [redacted]' } });
      expect(done).to.deep.include({ caller: 'Bearer [redacted]', list: ['agora_[redacted]', { api_key: '[redacted]' }] });
      expect(String(request!.time)).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expectNoSecret(lines.join('\n'));
    });
  });

  describe('a real `keel serve` process (its stderr)', () => {
    const tmp = tempDir();
    after(() => tmp.remove());

    it('writes JSON lines at the configured level, and a bad bearer token or the admin token never appears', async () => {
      const file = path.join(tmp.dir, 'keel.json');
      writeFileSync(file, JSON.stringify({ server: { logLevel: 'info' }, plugins: [] }));
      const server = await startServer(['--config', file, '--data-dir', path.join(tmp.dir, 'data'), '--port', '0'], { KEEL_ADMIN_TOKEN: ADMIN_TOKEN });
      try {
        expect((await fetch(`${server.url}/api/gateway/me`, { headers: { authorization: `Bearer ${BAD_TOKEN}` } })).status).to.equal(401);
        expect((await fetch(`${server.url}/api/gateway/me`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).to.equal(200);
        await until(async () => server.stderr(), (err) => err.includes('authentication failed'));
      } finally {
        await server.stop('SIGTERM');
      }
      const logLines = server.stderr().split('\n').filter((l) => l.startsWith('{'));
      const entries = logLines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(entries.find((e) => e.msg === 'kernel booted')).to.include({ level: 'info', app: 'keel' });
      expect(entries.some((e) => e.level === 'debug'), 'nothing below the configured level').to.equal(false);
      expectNoSecret(server.output());
    });
  });
});
