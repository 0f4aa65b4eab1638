/**
 * Runtime administration (seed 000 §4.10), admin only: `GET /admin/runtimes` — each account's
 * runtime plane with its counts (runs by status, active runs against the cap, sessions, private
 * bundles), filtered by `?account=` / `?tenant_id=` — and `/admin/runtime-reservations`: active-run
 * slots an admin reserves for one account, which the active-run cap of `POST /runs/start` and
 * `/runs/schedule` honours.
 */
import { badRequest, defineSchema, KEY_ID_MAX_LENGTH, notFound, route, type AuthService } from '@keel/plugin-sdk';
import type { BundleRegistry } from '../bundles/bundle-registry.js';
import { isListenerRun } from '../runtime/child-run.js';
import type { RunState, RunStatus } from '../runtime/run-state.js';
import type { RunStore } from '../runtime/run-store.js';
import type { RunReservations } from '../settings/run-reservations.js';
import type { ActiveRunCap } from './active-run-cap.js';

const STATUSES: RunStatus[] = ['running', 'waiting', 'completed', 'failed', 'cancelled'];
const NOTE_MAX = 500;

const runtimesQuery = defineSchema({
  type: 'object',
  additionalProperties: false,
  properties: { account: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH }, tenant_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH } },
});
const accountParams = defineSchema({ type: 'object', required: ['account'], properties: { account: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH } } });
const reserveBody = defineSchema({
  type: 'object',
  required: ['slots'],
  additionalProperties: false,
  properties: { slots: { type: 'integer', minimum: 1 }, note: { type: 'string', maxLength: NOTE_MAX, default: '' } },
  examples: [{ slots: 200, note: 'nightly import automation' }],
});

const reservationJson = {
  type: 'object',
  required: ['account', 'slots', 'note', 'reserved_at', 'reserved_by'],
  properties: { account: { type: 'string' }, slots: { type: 'integer' }, note: { type: 'string' }, reserved_at: { type: 'string' }, reserved_by: { type: 'string' } },
} as const;
const reservationResponse = defineSchema(reservationJson);
const reservationListResponse = defineSchema({ type: 'object', required: ['items', 'count', 'max_slots'], properties: { items: { type: 'array', items: reservationJson }, count: { type: 'integer' }, max_slots: { type: 'integer' } } });
const releaseResponse = defineSchema({ type: 'object', required: ['account', 'released'], properties: { account: { type: 'string' }, released: { type: 'boolean' } } });
const runtimesResponse = defineSchema({
  type: 'object',
  required: ['items', 'count'],
  properties: {
    count: { type: 'integer' },
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['account', 'tenant_id', 'exists', 'runs', 'runs_total', 'root_runs', 'active_runs', 'listener_runs', 'sessions', 'private_bundles', 'cap', 'reservation'],
        properties: {
          account: { type: 'string' },
          tenant_id: { type: ['string', 'null'] },
          exists: { type: 'boolean' },
          runs: { type: 'object', additionalProperties: { type: 'integer' } },
          runs_total: { type: 'integer' },
          root_runs: { type: 'integer' },
          active_runs: { type: 'integer' },
          listener_runs: { type: 'integer' },
          sessions: { type: 'integer' },
          private_bundles: { type: 'integer' },
          cap: {
            type: 'object',
            required: ['max_active_runs', 'default_max_active_runs', 'source', 'admin_exempt'],
            properties: { max_active_runs: { type: 'integer' }, default_max_active_runs: { type: 'integer' }, source: { enum: ['setting', 'reservation'] }, admin_exempt: { type: 'boolean' } },
          },
          reservation: { oneOf: [reservationJson, { type: 'null' }] },
        },
      },
    },
  },
});

export interface RuntimeAdminDeps {
  runs: RunStore;
  /** A run's current state (the runner holds live runs in memory; the store may lag behind). */
  load(runId: string): RunState | undefined;
  bundles: BundleRegistry;
  reservations: RunReservations;
  activeRuns: ActiveRunCap;
  auth: AuthService;
  /** `limits.maxActiveRunsPerAccount` and `limits.maxReservedActiveRuns`. */
  maxActiveRunsPerAccount: number;
  maxReservedActiveRuns: number;
}

export function runtimeAdminRoutes(d: RuntimeAdminDeps) {
  /** One account's runtime plane: its runs counted once, the cap the next start meets. */
  const plane = (account: string) => {
    const principal = d.auth.accountOf(account);
    const runs = d.runs.listByAccount(account).map((r) => d.load(r.run_id) ?? r);
    const byStatus = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<string, number>;
    const sessions = new Set<string>();
    let roots = 0;
    let active = 0;
    let listeners = 0;
    for (const r of runs) {
      byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
      const live = r.status === 'running' || r.status === 'waiting';
      if (r.parent_run_id === null) {
        roots++;
        if (r.session_id) sessions.add(r.session_id);
        if (live) active++;
      } else if (live && isListenerRun(r)) listeners++;
    }
    const cap = d.activeRuns.capOf(account);
    return {
      account,
      tenant_id: principal?.tenant ?? null,
      exists: principal !== null,
      runs: byStatus,
      runs_total: runs.length,
      root_runs: roots,
      active_runs: active,
      listener_runs: listeners,
      sessions: sessions.size,
      private_bundles: d.bundles.list(account).filter((e) => e.scope === 'private').length,
      cap: { max_active_runs: cap.max, default_max_active_runs: d.maxActiveRunsPerAccount, source: cap.reserved ? 'reservation' : 'setting', admin_exempt: d.auth.isAdmin(principal) },
      reservation: d.reservations.get(account) ?? null,
    };
  };
  const unknownAccount = (account: string) => notFound(`Account '${account}' does not exist (or is disabled) and has no runs on this gateway.`, { code: 'account_not_found' });

  return [
    route({
      method: 'GET',
      path: '/admin/runtimes',
      auth: 'admin',
      tags: ['admin'],
      summary: "Each account's runtime plane: runs by status, active runs against its cap, sessions, private bundles, reservation (`?account=`, `?tenant_id=`)",
      query: runtimesQuery,
      responses: { 200: { schema: runtimesResponse } },
      handler: ({ query }) => {
        let accounts: string[];
        if (query.account !== undefined) {
          if (d.auth.accountOf(query.account) === null && d.runs.listByAccount(query.account).length === 0) throw unknownAccount(query.account);
          accounts = [query.account];
        } else {
          accounts = [...new Set([...d.runs.accounts(), ...d.reservations.list().map((r) => r.account)])].sort();
        }
        let items = accounts.map(plane);
        if (query.tenant_id !== undefined) items = items.filter((p) => p.tenant_id === query.tenant_id);
        return { items, count: items.length };
      },
    }),
    route({
      method: 'GET',
      path: '/admin/runtime-reservations',
      auth: 'admin',
      tags: ['admin'],
      summary: 'Active-run slots reserved per account',
      responses: { 200: { schema: reservationListResponse } },
      handler: () => {
        const items = d.reservations.list();
        return { items, count: items.length, max_slots: d.maxReservedActiveRuns };
      },
    }),
    route({
      method: 'PUT',
      path: '/admin/runtime-reservations/:account',
      auth: 'admin',
      tags: ['admin'],
      summary: 'Reserve active-run slots for an account: {slots, note?}; it may then have that many root runs running or waiting at once',
      params: accountParams,
      body: reserveBody,
      responses: { 200: { schema: reservationResponse } },
      handler: async ({ params, body, principal }) => {
        if (d.auth.accountOf(params.account) === null) throw notFound(`Account '${params.account}' does not exist (or is disabled); create it first.`, { code: 'account_not_found' });
        if (body.slots > d.maxReservedActiveRuns) {
          throw badRequest(`slots ${body.slots} is more than the ${d.maxReservedActiveRuns} one account may reserve (setting \`limits.maxReservedActiveRuns\` of the gateway-runs plugin).`, { code: 'invalid_request', field: 'body.slots' });
        }
        return d.reservations.reserve(params.account, body.slots, body.note ?? '', principal.account);
      },
    }),
    route({
      method: 'DELETE',
      path: '/admin/runtime-reservations/:account',
      auth: 'admin',
      tags: ['admin'],
      summary: "Release an account's reservation (its cap is limits.maxActiveRunsPerAccount again)",
      params: accountParams,
      responses: { 200: { schema: releaseResponse } },
      handler: async ({ params }) => ({ account: params.account, released: await d.reservations.release(params.account) }),
    }),
  ];
}
