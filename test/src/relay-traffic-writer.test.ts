/**
 * The traffic log writer and its cleanup passes (reference §5), driven directly with small limits
 * on a temporary folder and a movable clock: line format and redaction, hourly files, rotation
 * before a file would overflow, omission records, retention by age and by size, the files it never
 * touches (symlinks, hard links, other names), unsafe current paths, dropping while a failed
 * cleanup stands, policies changed by another process, `recent(n)`, and `write` never throwing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Clock, Logger } from '@keel/plugin-sdk';
import { TrafficLog, type RelayConfig } from '@keel/plugin-relay';
import { until } from './helpers/until.js';

const MIB = 1024 * 1024;

class MovableClock implements Clock {
  offsetMs = 0;
  nowMs(): number {
    return Date.now() + this.offsetMs;
  }
  now(): Date {
    return new Date(this.nowMs());
  }
}

function quietLogger(warnings: string[] = []): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (msg) => void warnings.push(msg),
    error: () => undefined,
    child: () => logger,
  };
  return logger;
}

function settings(overrides: Partial<RelayConfig['logging']> = {}): RelayConfig['logging'] {
  return { dir: 'logs', retentionDays: 7, maxTotalMb: 1024, maxFileMb: 50, streamLines: false, cleanupIntervalSeconds: 3600, maxBufferedMb: 64, recentRecords: 200, ...overrides };
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/** The hour file for `ms`, as the layout names it. */
function hourFile(logsDir: string, ms: number): string {
  const d = new Date(ms);
  return path.join(logsDir, String(d.getUTCFullYear()), two(d.getUTCMonth() + 1), `${two(d.getUTCDate())}-${two(d.getUTCHours())}.log`);
}

function linesOf(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

function allLogFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).filter((name) => name.endsWith('.log')).map((name) => path.join(dir, name)).sort();
}

function oldFile(file: string, bytes: number, ageMs: number): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, 'x'.repeat(bytes));
  const when = new Date(Date.now() - ageMs);
  utimesSync(file, when, when);
  return file;
}

function immutable(file: string, on: boolean): boolean {
  try {
    execFileSync('chattr', [on ? '+i' : '-i', file], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('relay traffic: the log writer and its cleanup', function () {
  this.timeout(60_000);
  let root: string;
  let logsDir: string;
  let clock: MovableClock;
  let log: TrafficLog | null;

  function open(overrides: Partial<RelayConfig['logging']> = {}, warnings?: string[]): TrafficLog {
    log = new TrafficLog({ logsDir, settings: settings(overrides), clock, log: quietLogger(warnings) });
    return log;
  }

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'relay-traffic-'));
    logsDir = path.join(root, 'logs');
    clock = new MovableClock();
    log = null;
  });
  afterEach(async () => {
    await log?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('appends one compact, ASCII-escaped line per record to the UTC hour file (0600), with logged_at added', async () => {
    const traffic = open();
    traffic.write({ phase: 'inbound_request', request_id: 'req_1', text: 'café ☕', nested: { a: [1, 2] } });
    traffic.write({ phase: 'outbound_response', request_id: 'req_1', logged_at: '2020-01-01T00:00:00.000Z' });
    await traffic.flush();
    const file = hourFile(logsDir, clock.nowMs());
    const raw = readFileSync(file, 'utf8');
    const lines = raw.split('\n');
    expect(lines).to.have.length(3);
    expect(lines[2]).to.equal('');
    expect([...raw].every((char) => char.charCodeAt(0) < 0x80), "only ASCII").to.equal(true);
    expect(lines[0]).to.contain('"text":"caf\\u00e9 \\u2615"');
    expect(lines[0]).not.to.contain(': ');
    const [first, second] = linesOf(file);
    expect(first!.text).to.equal('café ☕');
    expect(Date.parse(String(first!.logged_at))).to.be.closeTo(clock.nowMs(), 60_000);
    expect(second!.logged_at).to.equal('2020-01-01T00:00:00.000Z');
    expect(statSync(file).mode & 0o777).to.equal(0o600);
  });

  it('redacts secrets at any depth but keeps error codes readable, without touching the caller\'s object', async () => {
    const traffic = open();
    const record = {
      phase: 'inbound_request',
      headers: { Authorization: 'Bearer sk-secret', cookie: 'a=b', 'x-other': 'fine' },
      body: { kind: 'json', json: { api_key: 'sk-2', deep: [{ Refresh_Token: 'rt', relay_token: 'r' }], code: 'oauth-code', file_data: 'AAAA' } },
      error: { message: 'over quota', type: 'rate_limit_error', code: 'rate_limit_exceeded' },
      upstream: { message: 'bad', code: 'overloaded' },
      failure: { error: { code: 'context_length_exceeded' } },
    };
    const copy = JSON.parse(JSON.stringify(record)) as unknown;
    traffic.write(record);
    await traffic.flush();
    const [line] = linesOf(hourFile(logsDir, clock.nowMs()));
    const text = JSON.stringify(line);
    for (const secret of ['sk-secret', 'a=b', 'sk-2', '"rt"', '"r"', 'oauth-code', 'AAAA']) expect(text).not.to.contain(secret);
    expect(line!.headers).to.deep.equal({ Authorization: '[REDACTED]', cookie: '[REDACTED]', 'x-other': 'fine' });
    expect((line!.body as { json: { code: string } }).json.code).to.equal('[REDACTED]');
    expect((line!.error as { code: string }).code).to.equal('rate_limit_exceeded');
    expect((line!.upstream as { code: string }).code).to.equal('overloaded');
    expect((line!.failure as { error: { code: string } }).error.code).to.equal('context_length_exceeded');
    expect(record).to.deep.equal(copy);
  });

  it('starts a new file when the UTC hour changes', async () => {
    const traffic = open();
    traffic.write({ phase: 'a' });
    await traffic.flush();
    const firstFile = hourFile(logsDir, clock.nowMs());
    clock.offsetMs += 3_600_000;
    traffic.write({ phase: 'b' });
    await traffic.flush();
    const secondFile = hourFile(logsDir, clock.nowMs());
    expect(secondFile).not.to.equal(firstFile);
    expect(linesOf(firstFile).map((r) => r.phase)).to.deep.equal(['a']);
    expect(linesOf(secondFile).map((r) => r.phase)).to.deep.equal(['b']);
  });

  it('rotates to DD-HH.<32 hex>.log before a record would overflow max_file_mb, never splitting a record', async () => {
    const traffic = open({ maxFileMb: 1, maxTotalMb: 100 });
    const blob = 'y'.repeat(300 * 1024);
    for (let i = 0; i < 7; i += 1) traffic.write({ phase: 'big', n: i, blob });
    await traffic.flush();
    const files = allLogFiles(logsDir);
    const current = hourFile(logsDir, clock.nowMs());
    const rotated = files.filter((f) => f !== current);
    expect(rotated.length).to.equal(2);
    for (const file of rotated) expect(path.basename(file)).to.match(/^\d{2}-\d{2}\.[0-9a-f]{32}\.log$/);
    for (const file of files) expect(statSync(file).size).to.be.at.most(MIB);
    const numbers = files.flatMap((f) => linesOf(f).map((r) => r.n as number)).sort();
    expect(numbers).to.deep.equal([0, 1, 2, 3, 4, 5, 6]);
  });

  it('writes an omission record instead of a record larger than max_file_mb', async () => {
    const traffic = open({ maxFileMb: 1, maxTotalMb: 100 });
    traffic.write({ phase: 'outbound_response', request_id: `req_${'9'.repeat(300)}`, blob: 'z'.repeat(MIB + 10) });
    traffic.write({ phase: 'small', request_id: 'req_2' });
    await traffic.flush();
    const records = linesOf(hourFile(logsDir, clock.nowMs()));
    expect(records).to.have.length(2);
    const omission = records[0]!;
    expect(omission.phase).to.equal('outbound_response');
    expect(omission.request_id).to.have.length(256);
    expect(omission.log_record_omitted).to.be.a('string').and.to.contain('max_file_mb');
    expect(omission.original_bytes).to.be.above(MIB);
    expect(omission.sha256).to.match(/^[0-9a-f]{64}$/);
    expect(omission).not.to.have.property('blob');
    expect(records[1]!.phase).to.equal('small');
    expect(traffic.status().oversized_records).to.equal(1);
  });

  it('deletes managed files older than retention_days at start, leaves everything else, removes emptied folders', async () => {
    const day = 86_400_000;
    const expired = [oldFile(path.join(logsDir, '2019/03/04-05.log'), 10, 10 * day), oldFile(path.join(logsDir, '2019/03/04-06.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.log'), 10, 9 * day)];
    const fresh = oldFile(path.join(logsDir, '2019/04/01-00.log'), 10, 1 * day);
    const outside = oldFile(path.join(root, 'elsewhere', 'target.log'), 10, 30 * day);
    const shared = oldFile(path.join(logsDir, '2019/05/01-00.log'), 10, 30 * day);
    linkSync(shared, path.join(root, 'elsewhere', 'shared-link.log'));
    mkdirSync(path.join(logsDir, '2019/06'), { recursive: true });
    symlinkSync(outside, path.join(logsDir, '2019/06/01-00.log'));
    // Symlinked year and month folders holding expired hour files: never followed.
    const viaYear = oldFile(path.join(root, 'year-tree', '01', '01-00.log'), 10, 30 * day);
    symlinkSync(path.join(root, 'year-tree'), path.join(logsDir, '2018'));
    const viaMonth = oldFile(path.join(root, 'month-tree', '01-00.log'), 10, 30 * day);
    symlinkSync(path.join(root, 'month-tree'), path.join(logsDir, '2019/08'));
    const others = [
      oldFile(path.join(logsDir, 'server.log'), 10, 30 * day),
      oldFile(path.join(logsDir, '2019/02/30-00.log'), 10, 30 * day),
      oldFile(path.join(logsDir, '2019/07/01-24.log'), 10, 30 * day),
      oldFile(path.join(logsDir, '2019/07/01-00.notahex.log'), 10, 30 * day),
      oldFile(path.join(logsDir, '2019/13/01-00.log'), 10, 30 * day),
      viaYear,
      viaMonth,
    ];
    const traffic = open({ retentionDays: 7 });
    traffic.start();
    const status = await until(() => traffic.status(), { what: 'the start pass', ok: (s) => s.last_cleanup_at !== null });
    expect(status).to.include({ deleted_files: 2, deleted_bytes: 20, last_error: null });
    for (const file of expired) expect(existsSync(file), file).to.equal(false);
    expect(existsSync(path.join(logsDir, '2019/03')), 'the emptied month folder').to.equal(false);
    for (const file of [fresh, outside, shared, ...others]) expect(existsSync(file), file).to.equal(true);
    expect(existsSync(path.join(logsDir, '2019/06/01-00.log'))).to.equal(true);
    expect(status.file_count).to.equal(1);
  });

  it('keeps the total within max_total_mb by deleting the oldest whole files, keeping room for the current file', async () => {
    const minute = 60_000;
    const files = [0, 1, 2, 3].map((i) => oldFile(path.join(logsDir, `2019/03/04-0${i}.log`), 700 * 1024, (10 - i) * minute));
    const traffic = open({ retentionDays: 0, maxTotalMb: 2, maxFileMb: 1 });
    traffic.start();
    const status = await until(() => traffic.status(), { what: 'the start pass', ok: (s) => s.last_cleanup_at !== null });
    // target = 2 MiB - (1 MiB - 0 bytes of current file) = 1 MiB: only the newest 700 KiB file fits.
    expect(files.map((f) => existsSync(f))).to.deep.equal([false, false, false, true]);
    expect(status).to.include({ deleted_files: 3, deleted_bytes: 3 * 700 * 1024, usage_bytes: 700 * 1024, over_budget: false });
  });

  it('never writes through a symlinked month folder: the record is dropped and counted', async () => {
    const current = hourFile(logsDir, clock.nowMs());
    const elsewhere = path.join(root, 'elsewhere');
    mkdirSync(elsewhere, { recursive: true });
    mkdirSync(path.dirname(path.dirname(current)), { recursive: true });
    symlinkSync(elsewhere, path.dirname(current));
    const traffic = open();
    traffic.write({ phase: 'inbound_request' });
    await traffic.flush();
    expect(readdirSync(elsewhere)).to.deep.equal([]);
    expect(traffic.status().dropped_records).to.equal(1);
    expect(traffic.status().last_error).to.contain('symlink');
  });

  it('never writes to a symlinked or hard-linked current file', async () => {
    const current = hourFile(logsDir, clock.nowMs());
    const target = oldFile(path.join(root, 'elsewhere', 'victim'), 0, 0);
    mkdirSync(path.dirname(current), { recursive: true });
    symlinkSync(target, current);
    const traffic = open();
    traffic.write({ phase: 'first' });
    await traffic.flush();
    expect(readFileSync(target, 'utf8')).to.equal('');
    expect(traffic.status().dropped_records).to.equal(1);
    rmSync(current);
    writeFileSync(current, '');
    linkSync(current, path.join(root, 'elsewhere', 'hardlink'));
    traffic.write({ phase: 'second' });
    await traffic.flush();
    expect(readFileSync(current, 'utf8')).to.equal('');
    expect(traffic.status().dropped_records).to.equal(2);
    expect(traffic.status().last_error).to.contain('hard link');
  });

  it('drops records while a failed cleanup stands, and writes again after a pass succeeds', async function () {
    const stuck = oldFile(path.join(logsDir, '2019/03/04-05.log'), 10, 30 * 86_400_000);
    if (!immutable(path.dirname(stuck), true)) this.skip();
    let traffic: TrafficLog;
    try {
      traffic = open({ retentionDays: 7, cleanupIntervalSeconds: 60 });
      traffic.start();
      const failed = await until(() => traffic.status(), { what: 'the failed start pass', ok: (s) => s.last_cleanup_at !== null });
      expect(failed.last_error).to.contain('04-05.log');
      traffic.write({ phase: 'while-failed' });
      await traffic.flush();
      expect(traffic.status().dropped_records).to.equal(1);
      expect(existsSync(hourFile(logsDir, clock.nowMs()))).to.equal(false);
    } finally {
      immutable(path.dirname(stuck), false);
    }
    // The next due pass (the interval elapsed) succeeds, and the record goes to the file.
    clock.offsetMs += 61_000;
    traffic.write({ phase: 'after' });
    await traffic.flush();
    expect(traffic.status().last_error).to.equal(null);
    expect(existsSync(stuck)).to.equal(false);
    expect(linesOf(hourFile(logsDir, clock.nowMs())).map((r) => r.phase)).to.deep.equal(['after']);
  });

  it('picks up a policy another process saved on its next write, and serialises concurrent partial updates', async () => {
    const traffic = open();
    traffic.start();
    await until(() => traffic.status(), { what: 'the start pass', ok: (s) => s.last_cleanup_at !== null });
    const other = new TrafficLog({ logsDir, settings: settings(), clock, log: quietLogger() });
    const third = new TrafficLog({ logsDir, settings: settings(), clock, log: quietLogger() });
    try {
      await Promise.all([other.updatePolicy({ retention_days: 3 }), third.updatePolicy({ max_file_mb: 5 }), other.updatePolicy({ max_total_mb: 500 })]);
    } finally {
      await other.stop();
      await third.stop();
    }
    expect(JSON.parse(readFileSync(path.join(logsDir, '.retention.json'), 'utf8'))).to.deep.equal({ retention_days: 3, max_total_mb: 500, max_file_mb: 5 });
    expect(existsSync(path.join(logsDir, '.retention.lock')), 'the lock file is kept').to.equal(true);
    expect(traffic.status().policy_source).to.equal('config');
    traffic.write({ phase: 'next' });
    await traffic.flush();
    expect(traffic.status()).to.deep.include({ policy: { retention_days: 3, max_total_mb: 500, max_file_mb: 5 }, policy_source: 'saved' });
  });

  it('rotates a current file already over max_file_mb at start (a smaller limit, an older version)', async () => {
    const current = oldFile(hourFile(logsDir, clock.nowMs()), MIB + 100, 0);
    const traffic = open({ maxFileMb: 1, maxTotalMb: 10 });
    traffic.start();
    await until(() => traffic.status(), { what: 'the start pass', ok: (s) => s.last_cleanup_at !== null });
    expect(existsSync(current)).to.equal(false);
    const rotated = allLogFiles(logsDir);
    expect(rotated).to.have.length(1);
    expect(path.basename(rotated[0]!)).to.match(/^\d{2}-\d{2}\.[0-9a-f]{32}\.log$/);
    expect(statSync(rotated[0]!).size).to.equal(MIB + 100);
  });

  it('picks up a policy another process saved within one interval when idle, and cleans by it', async () => {
    const traffic = open({ cleanupIntervalSeconds: 1 });
    traffic.start();
    await until(() => traffic.status(), { what: 'the start pass', ok: (s) => s.last_cleanup_at !== null });
    const other = new TrafficLog({ logsDir, settings: settings(), clock, log: quietLogger() });
    await other.updatePolicy({ retention_days: 2 });
    await other.stop();
    // Older than the new limit, younger than the old one: only the adopted policy deletes it.
    const old = oldFile(path.join(logsDir, '2019/03/04-05.log'), 10, 3 * 86_400_000);
    const status = await until(() => traffic.status(), { what: 'the idle process to adopt the saved policy', ok: (s) => s.policy_source === 'saved' && s.deleted_files === 1 });
    expect(status.policy.retention_days).to.equal(2);
    expect(existsSync(old)).to.equal(false);
  });

  it('keeps the last notable records for recent(n), redacted, oldest first', async () => {
    const traffic = open({ recentRecords: 3 });
    traffic.write({ phase: 'inbound_request', request_id: 'r0' });
    traffic.write({ phase: 'account_failover', request_id: 'r1', from_account: 'a', to_account: 'b' });
    traffic.write({ phase: 'compatibility_adaptation', request_id: 'r2', ignored_parameters: ['max_tokens'] });
    traffic.write({ phase: 'retry_backoff', request_id: 'r3' });
    traffic.write({ phase: 'upstream_stream_error', request_id: 'r4', error: { code: 'overloaded', message: 'x' }, headers: { authorization: 'Bearer t' } });
    const recent = traffic.recent(10);
    expect(recent.map((r) => r.request_id)).to.deep.equal(['r2', 'r3', 'r4']);
    expect(recent[2]!.headers).to.deep.equal({ authorization: '[REDACTED]' });
    expect((recent[2]!.error as { code: string }).code).to.equal('overloaded');
    expect(traffic.recent(1).map((r) => r.request_id)).to.deep.equal(['r4']);
  });

  it('drops and counts records past logging.maxBufferedMb waiting for the disk, and says why', async () => {
    const traffic = open({ maxBufferedMb: 1, maxFileMb: 10, maxTotalMb: 100 });
    const blob = 'q'.repeat(400 * 1024);
    for (let i = 0; i < 3; i += 1) traffic.write({ phase: 'big', n: i, blob });
    expect(traffic.status().dropped_records).to.equal(1);
    expect(traffic.status().last_error).to.contain('logging.maxBufferedMb');
    await traffic.flush();
    expect(linesOf(hourFile(logsDir, clock.nowMs())).map((r) => r.n)).to.deep.equal([0, 1]);
  });

  it('exposes logging.streamLines as the sink\'s streamLines flag', () => {
    expect(open({ streamLines: true }).streamLines).to.equal(true);
    expect(new TrafficLog({ logsDir, settings: settings(), clock, log: quietLogger() }).streamLines).to.equal(false);
  });

  it('never throws from write, even for a record JSON cannot hold; the record is counted as dropped', async () => {
    const traffic = open();
    const cyclic: Record<string, unknown> = { phase: 'bad' };
    cyclic.self = cyclic;
    expect(() => traffic.write(cyclic)).not.to.throw();
    expect(() => traffic.write({ phase: 'big', n: 10n })).not.to.throw();
    traffic.write({ phase: 'good' });
    await traffic.flush();
    expect(traffic.status().dropped_records).to.equal(2);
    expect(linesOf(hourFile(logsDir, clock.nowMs())).map((r) => r.phase)).to.deep.equal(['good']);
  });
});
