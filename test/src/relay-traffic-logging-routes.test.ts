/**
 * `GET` / `PUT /v1/relay/logging` through HTTP on a real kernel with the relay plugin (reference
 * §1.8, seed §2C, §7): the status object, partial merges saved to `.retention.json`, a 422 for every
 * invalid body that leaves the saved policy byte-identical, a 503 when storage prevents reading or
 * saving (previous policy kept, no temp file left), a 200 even when the cleanup pass failed, and the
 * gate (no token, a bad token).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type InjectResponse, type TestKernel } from '@keel/plugin-sdk/testing';
import { relayPlugin } from '@keel/plugin-relay';
import { until } from './helpers/until.js';
import { finishedRecords } from './helpers/relay-hosted.js';

const STATUS_FIELDS = ['policy', 'policy_source', 'policy_path', 'logs_dir', 'usage_bytes', 'file_count', 'over_budget', 'cleanup_interval_seconds', 'last_cleanup_at', 'deleted_files', 'deleted_bytes', 'oversized_records', 'dropped_records', 'last_error'];

interface Status {
  policy: { retention_days: number; max_total_mb: number; max_file_mb: number };
  policy_source: string;
  policy_path: string;
  logs_dir: string;
  usage_bytes: number;
  file_count: number;
  over_budget: boolean;
  last_cleanup_at: string | null;
  deleted_files: number;
  deleted_bytes: number;
  last_error: string | null;
}

/** The gate's request budget raised: these tests send many requests from one address. */
const ROOMY_GATE = { rateLimitPerMinute: 100_000, rateLimitBurst: 10_000 };

async function relayKernel(logging: Record<string, unknown> = {}): Promise<TestKernel> {
  return createTestKernel({ plugins: [{ plugin: relayPlugin, config: { logging, gate: ROOMY_GATE } }] });
}

/** The relay's token, from the file the gate creates at first start. */
function tokenOf(k: TestKernel): string {
  const file = path.join(k.dataDir, 'plugins', 'relay', 'relay-token');
  return readFileSync(file, 'utf8').trim();
}

function logsDirOf(k: TestKernel): string {
  return path.join(k.dataDir, 'plugins', 'relay', 'logs');
}

async function getLogging(k: TestKernel): Promise<InjectResponse> {
  return k.inject({ method: 'GET', url: '/v1/relay/logging', token: tokenOf(k) });
}

async function putLogging(k: TestKernel, payload: unknown): Promise<InjectResponse> {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return k.inject({ method: 'PUT', url: '/v1/relay/logging', token: tokenOf(k), headers: { 'content-type': 'application/json' }, payload: body });
}

function logFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((name) => /^\d{4}\/\d{2}\/\d{2}-\d{2}(\.[0-9a-f]{32})?\.log$/.test(name)).map((name) => path.join(dir, name));
}

function logRecords(dir: string): Array<Record<string, unknown>> {
  return logFiles(dir).flatMap((file) => finishedRecords(readFileSync(file, 'utf8')));
}

function tempFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.includes('.tmp')) : [];
}

/** Makes `file` immutable (even root cannot replace or unlink it); false where the file system has no such attribute. */
function immutable(file: string, on: boolean): boolean {
  try {
    execFileSync('chattr', [on ? '+i' : '-i', file], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A managed log file of `bytes` bytes, last modified `ageDays` ago. */
function oldLogFile(logsDir: string, relative: string, bytes: number, ageDays: number): string {
  const file = path.join(logsDir, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, 'x'.repeat(bytes));
  const when = new Date(Date.now() - ageDays * 86_400_000);
  utimesSync(file, when, when);
  return file;
}

describe('relay traffic: GET/PUT /v1/relay/logging', function () {
  this.timeout(120_000);

  describe('with the default settings', () => {
    let k: TestKernel;
    before(async () => {
      k = await relayKernel();
    });
    after(async () => k?.stop());

    it('GET answers every status field with the config policy, and a completed pass after start', async () => {
      const status = await until(async () => (await getLogging(k)).json<Status>(), { what: 'the first cleanup pass', ok: (s) => s.last_cleanup_at !== null });
      expect(Object.keys(status)).to.have.members(STATUS_FIELDS);
      expect(status.policy).to.deep.equal({ retention_days: 7, max_total_mb: 1024, max_file_mb: 50 });
      expect(status.policy_source).to.equal('config');
      expect(status.logs_dir).to.equal(logsDirOf(k));
      expect(status.policy_path).to.equal(path.join(logsDirOf(k), '.retention.json'));
      expect(status).to.include({ over_budget: false, deleted_files: 0, deleted_bytes: 0, last_error: null });
      expect(status).to.include({ cleanup_interval_seconds: 60, oversized_records: 0, dropped_records: 0 });
    });

    it('refuses both methods without a token and with a bad token (401)', async () => {
      for (const method of ['GET', 'PUT']) {
        const none = await k.inject({ method, url: '/v1/relay/logging', payload: method === 'PUT' ? '{}' : undefined });
        expect(none.statusCode, `${method} without a token`).to.equal(401);
        expect(none.json<{ error: { type: string } }>().error.type).to.equal('authentication_error');
        const bad = await k.inject({ method, url: '/v1/relay/logging', token: 'not-the-relay-token', payload: method === 'PUT' ? '{"retention_days": 1}' : undefined });
        expect(bad.statusCode, `${method} with a bad token`).to.equal(401);
      }
      expect(existsSync(path.join(logsDirOf(k), '.retention.json'))).to.equal(false);
    });

    it('PUT merges a partial policy over the effective one, saves it and reports it as saved', async () => {
      const first = await putLogging(k, { retention_days: 3 });
      expect(first.statusCode, first.body).to.equal(200);
      expect(first.json<Status>().policy).to.deep.equal({ retention_days: 3, max_total_mb: 1024, max_file_mb: 50 });
      expect(first.json<Status>().policy_source).to.equal('saved');
      const second = await putLogging(k, { max_file_mb: 10, max_total_mb: 20 });
      expect(second.statusCode, second.body).to.equal(200);
      expect(second.json<Status>().policy).to.deep.equal({ retention_days: 3, max_total_mb: 20, max_file_mb: 10 });
      const saved = JSON.parse(readFileSync(path.join(logsDirOf(k), '.retention.json'), 'utf8')) as unknown;
      expect(saved).to.deep.equal({ retention_days: 3, max_total_mb: 20, max_file_mb: 10 });
      const read = await getLogging(k);
      expect(read.json<Status>().policy).to.deep.equal({ retention_days: 3, max_total_mb: 20, max_file_mb: 10 });
      expect(read.json<Status>().policy_source).to.equal('saved');
      expect(tempFiles(logsDirOf(k))).to.deep.equal([]);
    });

    it('an empty PUT body changes nothing and answers the status', async () => {
      const before = readFileSync(path.join(logsDirOf(k), '.retention.json'));
      const res = await k.inject({ method: 'PUT', url: '/v1/relay/logging', token: tokenOf(k) });
      expect(res.statusCode, res.body).to.equal(200);
      expect(readFileSync(path.join(logsDirOf(k), '.retention.json')).equals(before)).to.equal(true);
      expect(res.json<Status>().policy).to.deep.equal(JSON.parse(before.toString()));
    });

    const invalid: Array<[string, unknown]> = [
      ['an unknown field', { retention_days: 3, keep_forever: 1 }],
      ['a boolean', { retention_days: true }],
      ['a float', { max_total_mb: 1.5 }],
      ['a string', { max_file_mb: '5' }],
      ['null', { retention_days: null }],
      ['a negative retention', { retention_days: -1 }],
      ['a retention above 36500 days', { retention_days: 36501 }],
      ['a zero total budget', { max_total_mb: 0 }],
      ['a total budget above 1048576 MiB', { max_total_mb: 1048577 }],
      ['a zero file limit', { max_file_mb: 0 }],
      ['a file limit above 10240 MiB', { max_file_mb: 10241 }],
      ['a file limit above the total in the body', { max_total_mb: 30, max_file_mb: 31 }],
      ['a file limit above the saved total (after the merge)', { max_file_mb: 21 }],
      ['an array body', [{ retention_days: 3 }]],
      ['a string body', '"retention_days"'],
      ['a number body', '5'],
      ['a null body', 'null'],
    ];
    for (const [what, body] of invalid) {
      it(`refuses ${what} with 422 and leaves the saved policy byte-identical`, async () => {
        const policyPath = path.join(logsDirOf(k), '.retention.json');
        const before = readFileSync(policyPath);
        const res = await putLogging(k, body);
        expect(res.statusCode, res.body).to.equal(422);
        const error = res.json<{ error: { message: string; type: string; code: string }; detail: string }>();
        expect(error.error).to.include({ type: 'invalid_request_error', code: 'invalid_logging_policy' });
        expect(error.detail).to.equal(error.error.message);
        expect(readFileSync(policyPath).equals(before)).to.equal(true);
        expect(tempFiles(logsDirOf(k))).to.deep.equal([]);
      });
    }

    it('answers a body that is not JSON with 400 and saves nothing', async () => {
      const policyPath = path.join(logsDirOf(k), '.retention.json');
      const before = readFileSync(policyPath);
      const res = await putLogging(k, '{"retention_days": ');
      expect(res.statusCode, res.body).to.equal(400);
      expect(readFileSync(policyPath).equals(before)).to.equal(true);
    });

    it('logs its requests and answers with the token redacted', async () => {
      const res = await putLogging(k, { retention_days: 13 });
      expect(res.statusCode, res.body).to.equal(200);
      const isMine = (r: Record<string, unknown>): boolean => r.phase === 'inbound_request' && JSON.stringify((r.body as { json?: unknown }).json) === '{"retention_days":13}';
      const records = await until(() => logRecords(logsDirOf(k)), {
        what: 'the PUT\'s inbound and outbound records',
        ok: (rs) => rs.some((r) => isMine(r) && rs.some((o) => o.phase === 'outbound_response' && o.request_id === r.request_id)),
      });
      const inbound = records.find(isMine)!;
      expect(inbound).to.include({ method: 'PUT', path: '/v1/relay/logging', client_ip: '127.0.0.1' });
      expect(inbound.request_id).to.match(/^req_[0-9a-f]{32}$/);
      expect((inbound.headers as Record<string, unknown>).authorization).to.equal('[REDACTED]');
      const outbound = records.find((r) => r.phase === 'outbound_response' && r.request_id === inbound.request_id)!;
      expect(outbound.status_code).to.equal(200);
      expect((outbound.body as { json: { policy: { retention_days: number } } }).json.policy.retention_days).to.equal(13);
      const refused = await putLogging(k, { retention_days: -5 });
      expect(refused.statusCode).to.equal(422);
      await until(() => logRecords(logsDirOf(k)), { what: 'the 422 outbound record', ok: (rs) => rs.some((r) => r.phase === 'outbound_response' && r.status_code === 422) });
      for (const file of logFiles(logsDirOf(k))) expect(readFileSync(file, 'utf8')).not.to.contain(tokenOf(k));
    });

    it('lists both routes in /openapi.json', async () => {
      const doc = (await k.inject({ url: '/openapi.json' })).json<{ paths: Record<string, Record<string, unknown>> }>();
      expect(Object.keys(doc.paths['/v1/relay/logging'] ?? {})).to.have.members(['get', 'put']);
    });
  });

  describe('applying a policy', () => {
    let k: TestKernel;
    before(async () => {
      k = await relayKernel();
      await until(async () => (await getLogging(k)).json<Status>(), { what: 'the first cleanup pass', ok: (s) => s.last_cleanup_at !== null });
    });
    after(async () => k?.stop());

    it('runs a cleanup pass at once: expired managed files are gone in the PUT answer, the rest is left alone', async () => {
      const logs = logsDirOf(k);
      const expired = [oldLogFile(logs, '2020/01/01-00.log', 100, 40), oldLogFile(logs, '2020/01/01-01.0123456789abcdef0123456789abcdef.log', 50, 40)];
      const kept = oldLogFile(logs, '2020/02/01-00.log', 10, 2);
      const unrelated = [oldLogFile(logs, 'console.log', 5, 40), oldLogFile(logs, '2020/03/notes.txt', 5, 40), oldLogFile(logs, '2020/13/01-00.log', 5, 40)];
      const res = await putLogging(k, { retention_days: 30 });
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json<Status>()).to.include({ deleted_files: 2, deleted_bytes: 150, last_error: null });
      for (const file of expired) expect(existsSync(file), file).to.equal(false);
      expect(existsSync(path.join(logs, '2020', '01')), 'the emptied month folder').to.equal(false);
      expect(existsSync(kept)).to.equal(true);
      for (const file of unrelated) expect(existsSync(file), file).to.equal(true);
      const status = (await getLogging(k)).json<Status>();
      expect(status.file_count).to.be.at.least(1);
      expect(status.usage_bytes).to.be.at.least(10);
    });

    it('answers 200 when the saved policy could not be enforced, with the failure in last_error', async function () {
      const logs = logsDirOf(k);
      const stuck = oldLogFile(logs, '2021/05/01-00.log', 100, 400);
      const folder = path.dirname(stuck);
      if (!immutable(folder, true)) this.skip();
      try {
        const res = await putLogging(k, { retention_days: 100 });
        expect(res.statusCode, res.body).to.equal(200);
        const status = res.json<Status>();
        expect(status.policy.retention_days).to.equal(100);
        expect(status.last_error).to.be.a('string').and.to.contain('01-00.log');
        expect(existsSync(stuck)).to.equal(true);
      } finally {
        immutable(folder, false);
      }
      const fixed = await putLogging(k, { retention_days: 99 });
      expect(fixed.json<Status>().last_error).to.equal(null);
      expect(existsSync(stuck)).to.equal(false);
    });
  });

  describe('when storage prevents reading or saving the policy', () => {
    let k: TestKernel;
    before(async () => {
      k = await relayKernel();
    });
    after(async () => k?.stop());

    it('answers 503 to GET and PUT while the saved policy cannot be read, and recovers once it can', async () => {
      const policyPath = path.join(logsDirOf(k), '.retention.json');
      mkdirSync(policyPath, { recursive: true });
      try {
        const read = await getLogging(k);
        expect(read.statusCode, read.body).to.equal(503);
        expect(read.json<{ error: { code: string; message: string } }>().error.code).to.equal('logging_storage_unavailable');
        expect(read.json<{ error: { message: string } }>().error.message).to.contain('.retention.json');
        const write = await putLogging(k, { retention_days: 2 });
        expect(write.statusCode, write.body).to.equal(503);
        expect(tempFiles(logsDirOf(k))).to.deep.equal([]);
      } finally {
        rmSync(policyPath, { recursive: true });
      }
      const back = await getLogging(k);
      expect(back.statusCode).to.equal(200);
      expect(back.json<Status>().policy_source).to.equal('config');
    });

    it('answers 503 to GET and PUT for a saved policy that is not valid JSON', async () => {
      const policyPath = path.join(logsDirOf(k), '.retention.json');
      writeFileSync(policyPath, '{"retention_days": ');
      try {
        expect((await getLogging(k)).statusCode).to.equal(503);
        expect((await putLogging(k, { retention_days: 2 })).statusCode).to.equal(503);
        expect(readFileSync(policyPath, 'utf8')).to.equal('{"retention_days": ');
      } finally {
        rmSync(policyPath);
      }
    });

    it('answers 503 when the lock cannot be taken, keeping the saved policy and leaving no temp file', async () => {
      const saved = await putLogging(k, { retention_days: 4 });
      expect(saved.statusCode, saved.body).to.equal(200);
      const policyPath = path.join(logsDirOf(k), '.retention.json');
      const before = readFileSync(policyPath);
      const lockPath = path.join(logsDirOf(k), '.retention.lock');
      rmSync(lockPath);
      mkdirSync(lockPath);
      try {
        const res = await putLogging(k, { retention_days: 5 });
        expect(res.statusCode, res.body).to.equal(503);
        expect(readFileSync(policyPath).equals(before)).to.equal(true);
        expect(tempFiles(logsDirOf(k))).to.deep.equal([]);
        const read = await getLogging(k);
        expect(read.json<Status>().policy.retention_days).to.equal(4);
      } finally {
        rmSync(lockPath, { recursive: true });
      }
    });

    it('answers 503 when the saved policy cannot be replaced, removing its temp file', async function () {
      expect((await putLogging(k, { retention_days: 4 })).statusCode).to.equal(200);
      const policyPath = path.join(logsDirOf(k), '.retention.json');
      const before = readFileSync(policyPath);
      if (!immutable(policyPath, true)) this.skip();
      try {
        const res = await putLogging(k, { retention_days: 6 });
        expect(res.statusCode, res.body).to.equal(503);
        expect(res.json<{ error: { message: string } }>().error.message).to.contain('previous policy is kept');
        expect(tempFiles(logsDirOf(k))).to.deep.equal([]);
      } finally {
        immutable(policyPath, false);
      }
      expect(readFileSync(policyPath).equals(before)).to.equal(true);
      expect((await getLogging(k)).json<Status>().policy.retention_days).to.equal(4);
    });
  });

  describe('when the logs folder is a file', () => {
    let k: TestKernel;
    let scratch: string;
    let logsFile: string;
    before(async () => {
      scratch = mkdtempSync(path.join(os.tmpdir(), 'relay-logs-file-'));
      logsFile = path.join(scratch, 'logs');
      writeFileSync(logsFile, 'not a folder');
      k = await createTestKernel({ plugins: [{ plugin: relayPlugin, config: { logging: { dir: logsFile }, gate: ROOMY_GATE } }] });
    });
    after(async () => {
      await k?.stop();
      rmSync(scratch, { recursive: true, force: true });
    });

    it('answers 503 to GET and PUT, and the kernel goes on serving', async () => {
      const read = await getLogging(k);
      expect(read.statusCode, read.body).to.equal(503);
      const write = await putLogging(k, { retention_days: 2 });
      expect(write.statusCode, write.body).to.equal(503);
      expect(readFileSync(logsFile, 'utf8')).to.equal('not a folder');
      expect((await k.inject({ url: '/api/health' })).statusCode).to.equal(200);
    });
  });
});
