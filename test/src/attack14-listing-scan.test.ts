/**
 * Attack on `GET /runs` (security review of issue 14): a listing whose filter matches little
 * (`archived_only=true`, `kind=docs`, an unknown `session_id`, `root_only` on an account with many
 * child runs) read and decoded every run of the account, variables included, on every request:
 * ~150 ms a request with 1,000 runs of 100 kB, growing with the account's history, and any signed-in
 * account could repeat it to block the event loop for everyone. Listings are now served from indexes
 * (runs by session, turns by account, the parent index), and whatever must still walk the account
 * stops after `limits.maxListScan` runs and answers `truncated: true`.
 *
 * The tests make runs whose variables hold ~200 kB and run the gateway with a scan budget smaller
 * than the account's runs: a listing that walked the account would stop before it reached the runs
 * it must show (they are the oldest), so a complete, untruncated answer shows it read only them.
 */
import path from 'node:path';
import { expect } from 'chai';
import { open } from 'lmdb';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { until } from './helpers/gateway-runs.js';
import { echoFlow } from './helpers/history.js';
import { tempDir } from './helpers/paths.js';

type Row = { run_id: string; session_id: string; parent_run_id: string | null; archived?: boolean; kind: string };
type Listing = { items: Row[]; archived_sessions: number; truncated: boolean };

/** ~200 kB the run keeps in its variables (its input_data). */
const BIG = { prompt: 'q', junk: 'x'.repeat(200_000) };

/** A kernel on `dataDir` with the runs stack and the given scan budget. */
const boot = (dataDir: string, maxListScan: number) =>
  createTestKernel({ dataDir, plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { limits: { maxListScan } } }] });

/** The account's runs, as `GET /runs` shows them to `token`. */
class Lister {
  constructor(public k: TestKernel, private readonly token: string) {}

  async list(query: string): Promise<Listing> {
    const res = await this.k.inject({ url: `/api/gateway/runs?${query}`, token: this.token });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<Listing>();
  }

  async status(id: string): Promise<string> {
    return (await this.k.inject({ url: `/api/gateway/runs/${id}`, token: this.token })).json<{ status: string }>().status;
  }

  /** A completed echo turn holding ~200 kB, in `session`. */
  async turn(session: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await this.k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: this.token, payload: { bundle_id: 'echo', session_id: session, input_data: BIG, ...extra } });
    expect(res.statusCode, res.body).to.equal(200);
    const id = res.json<{ run_id: string }>().run_id;
    await until(() => this.status(id), { what: `run ${id} completed`, ok: (s) => s === 'completed', deadline: 120_000 });
    return id;
  }

  async archive(session: string): Promise<void> {
    const res = await this.k.inject({ method: 'POST', url: `/api/gateway/sessions/${session}/archive`, token: this.token });
    expect(res.statusCode, res.body).to.equal(200);
  }

  /** A schedule parent (a legacy automation, not a turn) that runs `count` echo children holding ~200 kB; answers its id once it ended. */
  async schedule(session: string, count: number): Promise<string> {
    const res = await this.k.inject({ method: 'POST', url: '/api/gateway/runs/schedule', token: this.token, payload: { bundle_id: 'echo', input_data: BIG, start_at: 'now', interval: '100ms', repeat_count: count, session_id: session } });
    expect(res.statusCode, res.body).to.equal(200);
    const id = res.json<{ run_id: string }>().run_id;
    await until(() => this.status(id), { what: `schedule ${id} completed`, ok: (s) => s === 'completed', deadline: 300_000 });
    return id;
  }
}

const ids = (l: Listing) => l.items.map((r) => r.run_id);

describe('attack14: a run listing reads what it shows, not the account history', function () {
  this.timeout(1_800_000);

  describe('with a scan budget of 15 runs and 20 runs of ~200 kB (the matching ones the oldest)', () => {
    const data = tempDir('keel-attack14-listing-');
    let l: Lister;
    let archivedTurn = '';
    let docsTurn = '';
    const chats: string[] = [];
    let parent = '';

    before(async () => {
      const k = await boot(data.dir, 15);
      const token = await createAccount(k, 'lister');
      await uploadBundleAs(k, token, 'echo', echoFlow);
      l = new Lister(k, token);
      archivedTurn = await l.turn('old-chat');
      await l.archive('old-chat');
      docsTurn = await l.turn('docs-s', { kind: 'docs' });
      for (let i = 0; i < 5; i++) chats.unshift(await l.turn('chat-s'));
      // 12 child runs and their parent: the newest 13 runs of the account.
      parent = await l.schedule('sched-s', 12);
    });
    after(async () => {
      await l?.k.stop();
      data.remove();
    });

    it('serves archived_only from the archived sessions alone: complete and not truncated', async () => {
      for (const q of ['archived_only=true', 'archived_only=true&root_only=true', 'archived_only=true&kind=all']) {
        const listing = await l.list(q);
        expect(ids(listing), q).to.deep.equal([archivedTurn]);
        expect(listing.items[0], q).to.include({ archived: true });
        expect(listing.truncated, q).to.equal(false);
        expect(listing.archived_sessions, q).to.equal(1);
      }
    });

    it('serves kind=docs from the docs sessions alone', async () => {
      for (const q of ['kind=docs', 'root_only=true&kind=docs']) {
        const listing = await l.list(q);
        expect(ids(listing), q).to.deep.equal([docsTurn]);
        expect(listing.items[0], q).to.include({ kind: 'docs' });
        expect(listing.truncated, q).to.equal(false);
      }
      expect(ids(await l.list('kind=docs&archived_only=true'))).to.deep.equal([]);
    });

    it('serves session_id from the session index: a named session, an unknown one, and never another account’s', async () => {
      const chat = await l.list('session_id=chat-s&root_only=true');
      expect(ids(chat)).to.deep.equal(chats);
      expect(chat.truncated).to.equal(false);
      const archived = await l.list('session_id=old-chat&root_only=true');
      expect(ids(archived)).to.deep.equal([archivedTurn]);
      const unknown = await l.list('session_id=no-such-session');
      expect(unknown).to.include({ truncated: false });
      expect(unknown.items).to.deep.equal([]);
      const other = await createAccount(l.k, 'snooper');
      const snooped = await new Lister(l.k, other).list('session_id=chat-s');
      expect(snooped.items).to.deep.equal([]);
    });

    it('serves root_only from the turn index: the chat turns past 13 newer schedule runs, archived and docs turns left out unread', async () => {
      const turns = await l.list('root_only=true');
      expect(ids(turns)).to.deep.equal(chats);
      expect(turns.truncated).to.equal(false);
      expect(ids(await l.list('root_only=true&kind=all'))).to.deep.equal([...chats, docsTurn]);
      expect(ids(await l.list('root_only=true&limit=2'))).to.deep.equal(chats.slice(0, 2));
    });

    it('serves parent_run_id from the parent index, newest first, only to the owner', async () => {
      const children = await l.list(`parent_run_id=${parent}`);
      expect(children.items).to.have.length(12);
      expect(children.items.every((r) => r.parent_run_id === parent)).to.equal(true);
      expect(children.truncated).to.equal(false);
      const sessionRows = ids(await l.list('session_id=sched-s'));
      expect(sessionRows.slice(0, 12)).to.deep.equal(ids(children));
      expect(sessionRows[12]).to.equal(parent);
      const other = await createAccount(l.k, 'snooper2');
      expect((await new Lister(l.k, other).list(`parent_run_id=${parent}`)).items).to.deep.equal([]);
    });

    it('stops a listing that must walk the account after limits.maxListScan runs and says truncated: true', async () => {
      // No run is a discussion: the walk reads 15 runs and stops.
      const none = await l.list('session_kind=discussion');
      expect(none).to.include({ truncated: true });
      expect(none.items).to.deep.equal([]);
      // The schedule parent is the 13th newest run: found, then the walk stops at the budget.
      const automations = await l.list('session_kind=automation');
      expect(ids(automations)).to.deep.equal([parent]);
      expect(automations.truncated).to.equal(true);
      // A page that fills before the budget is not truncated.
      const page = await l.list('limit=3');
      expect(page.items).to.have.length(3);
      expect(page.truncated).to.equal(false);
    });
  });

  it('serves every filtered listing right after a restart on data from before the indexes (built once at start)', async () => {
    const data = tempDir('keel-attack14-listing-restart-');
    let k: TestKernel | null = await boot(data.dir, 6);
    try {
      const token = await createAccount(k, 'restarter');
      await uploadBundleAs(k, token, 'echo', echoFlow);
      let l = new Lister(k, token);
      const archivedTurn = await l.turn('r-old');
      await l.archive('r-old');
      const docsTurn = await l.turn('r-docs', { kind: 'docs' });
      const chats = [await l.turn('r-chat')];
      chats.unshift(await l.turn('r-chat'));
      const parent = await l.schedule('r-sched', 3);
      const queries = ['archived_only=true', 'root_only=true&archived_only=true', 'kind=docs', 'root_only=true&kind=docs', 'root_only=true', 'session_id=r-chat', 'session_id=r-old&root_only=true', 'session_id=unknown', `parent_run_id=${parent}`];
      const expected: Record<string, string[]> = {
        'archived_only=true': [archivedTurn],
        'root_only=true&archived_only=true': [archivedTurn],
        'kind=docs': [docsTurn],
        'root_only=true&kind=docs': [docsTurn],
        'root_only=true': chats,
        'session_id=r-chat': chats,
        'session_id=r-old&root_only=true': [archivedTurn],
        'session_id=unknown': [],
      };
      const answers = async () => {
        const out: Record<string, string[]> = {};
        for (const q of queries) {
          const listing = await l.list(q);
          expect(listing.truncated, q).to.equal(false);
          out[q] = ids(listing);
        }
        return out;
      };
      const before = await answers();
      expect(before[`parent_run_id=${parent}`]).to.have.length(3);
      for (const [q, want] of Object.entries(expected)) expect(before[q], q).to.deep.equal(want);
      await k.stop();
      k = null;

      // The data as a build before the listing indexes left it: no index entries, no migration mark.
      const env = open({ path: path.join(data.dir, 'db'), maxDbs: 512, overlappingSync: false, compression: false });
      for (const name of ['gateway-runs:runs-in-session', 'gateway-runs:runs-turns-by-account']) env.openDB({ name }).clearSync();
      env.openDB<string, string>({ name: 'gateway-runs:runs-meta' }).removeSync('listing-indexes');
      await env.close();

      k = await boot(data.dir, 6);
      l = new Lister(k, token);
      expect(await answers()).to.deep.equal(before);
      // Runs made after the restart are indexed as they are made.
      const fresh = await l.turn('r-chat');
      expect(ids(await l.list('root_only=true'))).to.deep.equal([fresh, ...chats]);
      expect(ids(await l.list('session_id=r-chat'))).to.deep.equal([fresh, ...chats]);
    } finally {
      await k?.stop();
      data.remove();
    }
  });
});
