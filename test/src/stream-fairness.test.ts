/**
 * Issue 9 item 7: one large ledger must not stall every live stream. Many subscribers replay a run's
 * large ledger, reading slowly, while a small unrelated run streams live: the small run's stream ends
 * (`done`) while the large replays are still in progress, and every large replay still delivers every
 * record exactly once, in order, then `done` (nobody is cut off for being slower than the replay).
 */
import http from 'node:http';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { ledgerWriterPlugin } from './fixtures/ledger-writer-plugin.js';
import { until } from './helpers/gateway-runs.js';
import { json, sseParser } from './helpers/sse.js';

// 60 records of ~400 KB, then one of 6 MB (larger than the SSE helper's 4 MiB buffer limit): a 30 MB ledger.
// The 6 MB record is over the ledger's default record limit (4 MiB), so this kernel raises `maxRecordBytes`.
const LARGE_RECORDS = 61;
const RECORD_BYTES = 400_000;
const HUGE_RECORD_BYTES = 6_000_000;
const SLOW_READERS = 8;

interface Followed {
  /** Cursors of the step events, as received. */
  ids: number[];
  /** Step ids of the records, as received (the writer names them after their cursor). */
  steps: string[];
  done: boolean;
  ended: boolean;
  error: string | null;
  /** Resolves when the stream ended (with `done` or not). */
  finished: Promise<void>;
}

/**
 * Follows an SSE stream over a real socket. `pauseMs` > 0 reads slowly: after each chunk the reader
 * stops reading for that long, so the server's socket backs up. `onDone` runs when `done` arrives.
 */
function follow(url: string, token: string, options: { pauseMs?: number; lastEventId?: number; onDone?: () => void } = {}): Followed {
  const out: Followed = { ids: [], steps: [], done: false, ended: false, error: null, finished: Promise.resolve() };
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId);
  out.finished = new Promise((resolve) => {
    const end = (error: string | null) => {
      if (out.ended) return;
      out.ended = true;
      out.error = error;
      resolve();
    };
    const req = http.get(url, { headers, agent: false }, (res) => {
      if (res.statusCode !== 200) return end(`status ${res.statusCode}`);
      res.setEncoding('utf8');
      const parser = sseParser((event) => {
        if (out.done) return;
        if (event.event === 'step') {
          const id = Number(event.id);
          const data = json<{ cursor: number; step_id: string }>(event);
          expect(data.cursor).to.equal(id);
          out.ids.push(id);
          out.steps.push(data.step_id);
        } else if (event.event === 'done') {
          out.done = true;
          options.onDone?.();
          req.destroy();
          end(null);
        }
      });
      res.on('data', (chunk: string) => {
        parser.feed(chunk);
        if (out.done) return;
        if (options.pauseMs) {
          res.pause();
          setTimeout(() => res.resume(), options.pauseMs);
        }
      });
      res.on('end', () => end('the stream ended without done'));
      res.on('error', (err) => end(err.message));
    });
    req.on('error', (err) => end(out.done ? null : err.message));
  });
  return out;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('ledger streams stay fair when one run has a large ledger (issue 9 item 7)', function () {
  this.timeout(240_000);
  let k: TestKernel;
  let url: string;
  before(async () => {
    k = await createTestKernel({ plugins: [{ plugin: ledgerPlugin, config: { maxRecordBytes: 8 * 1024 * 1024 } }, ledgerWriterPlugin] });
    url = (await k.listen()).url;
  });
  after(() => k.stop());

  const post = async (path: string, payload: Record<string, unknown> = {}) => {
    const res = await k.inject({ method: 'POST', url: `/api/test-ledger${path}`, token: k.adminToken, payload });
    expect(res.statusCode, res.body).to.equal(200);
  };
  const streamUrl = (runId: string) => `${url}/api/gateway/runs/${runId}/ledger/stream?heartbeat_s=1`;

  it('ends a small run\'s live stream while slow replays of a large ledger are in progress, and the replays deliver every record once, in order', async () => {
    await post('/runs/large');
    await post('/runs/large/append', { count: LARGE_RECORDS - 1, bytes: RECORD_BYTES });
    await post('/runs/large/append', { count: 1, bytes: HUGE_RECORD_BYTES, end: true });

    const finishedOrder: string[] = [];
    // Slow readers from the start, and one resuming from cursor 17 (Last-Event-ID).
    const large = range(1, SLOW_READERS).map((i) => follow(streamUrl('large'), k.adminToken, { pauseMs: 25, onDone: () => finishedOrder.push(`large-${i}`) }));
    const resumed = follow(streamUrl('large'), k.adminToken, { pauseMs: 25, lastEventId: 17, onDone: () => finishedOrder.push('large-resumed') });
    const all = [...large, resumed];
    // The replays are under way: each has a record (or has already failed, which the checks below report).
    await until(async () => all.map((s) => s.ids.length > 0 || s.ended), (v) => v.every(Boolean), 120_000);

    // A small, unrelated run streams live meanwhile: opened first, then written, then ended.
    await post('/runs/small');
    const small = follow(streamUrl('small'), k.adminToken, { onDone: () => finishedOrder.push('small') });
    await post('/runs/small/append', { count: 5, bytes: 100 });
    await post('/runs/small/append', { count: 0, end: true });
    await small.finished;
    expect(small.error).to.equal(null);
    expect(small.ids).to.deep.equal(range(1, 5));

    await Promise.all(all.map((s) => s.finished));
    for (const s of all) expect({ error: s.error, done: s.done }).to.deep.equal({ error: null, done: true });
    // Exactly once, in order: cursors and the records' own step ids.
    for (const s of large) {
      expect(s.ids).to.deep.equal(range(1, LARGE_RECORDS));
      expect(s.steps).to.deep.equal(range(1, LARGE_RECORDS).map((c) => `step-${c}`));
    }
    expect(resumed.ids).to.deep.equal(range(18, LARGE_RECORDS));
    // The small run did not wait for the large replays: it finished before any of them.
    expect(finishedOrder[0]).to.equal('small');
    expect(finishedOrder).to.have.length(SLOW_READERS + 2);
  });
});

describe('ledger stream settings: small pages and no shared frames still resume exactly (issue 9 item 7)', function () {
  this.timeout(120_000);
  let k: TestKernel;
  let url: string;
  before(async () => {
    // Pages of at most 3 records or 1 KiB (each record here is ~2 KB, so one record per page), nothing kept to share.
    k = await createTestKernel({ plugins: [{ plugin: ledgerPlugin, config: { streamPageRecords: 3, streamPageBytes: 1024, streamCacheBytes: 0 } }, ledgerWriterPlugin] });
    url = (await k.listen()).url;
  });
  after(() => k.stop());

  it('delivers every record once, in order, from ?after= and from Last-Event-ID (which wins), then done', async () => {
    const post = async (path: string, payload: Record<string, unknown> = {}) => expect((await k.inject({ method: 'POST', url: `/api/test-ledger${path}`, token: k.adminToken, payload })).statusCode).to.equal(200);
    await post('/runs/paged');
    await post('/runs/paged/append', { count: 40, bytes: 2000, end: true });
    const base = `${url}/api/gateway/runs/paged/ledger/stream`;
    const streams = [follow(base, k.adminToken), follow(`${base}?after=10`, k.adminToken, { pauseMs: 5 }), follow(`${base}?after=5`, k.adminToken, { lastEventId: 25 })];
    await Promise.all(streams.map((s) => s.finished));
    for (const s of streams) expect({ error: s.error, done: s.done }).to.deep.equal({ error: null, done: true });
    expect(streams[0]!.ids).to.deep.equal(range(1, 40));
    expect(streams[1]!.ids).to.deep.equal(range(11, 40));
    expect(streams[2]!.ids).to.deep.equal(range(26, 40));
  });
});
