/**
 * The policy levels over HTTP (seed §4.5, reference §1.7): the gateway level (GET any signed-in
 * principal, PUT admin), an account's level (admin; `me` reads one's own), a session's level (its
 * owner, or an admin naming the owner with `?account=`). Every write is checked by the PUT rules
 * (400 `workspace_refused`, nothing saved) and audited as `workspace_policy_changed`.
 */
import { defineSchema, forbidden, route, type AuthService, type Principal } from '@keel/plugin-sdk';
import { resolveAccount, shownAccount, type NamedAccount } from '../account-names.js';
import { namedFields, refuse, validateLayer, visibleGateway } from '../layer-rules.js';
import { OWN_FOLDER_LAYER, summaryOf } from '../policy-layer.js';
import type { StoredLayer } from '../policy-store.js';
import type { WorkspacePolicy } from '../workspace-policy.js';
import type { PolicyLayer } from '../workspace-service.js';
import { accountParams, anyObject, auditRecord, COMMAND_SANDBOX, refusing, sessionParams } from './route-helpers.js';

const ROUTE = '/api/gateway/workspace/policy';

const sessionQuery = defineSchema({
  type: 'object',
  properties: { account: { type: 'string', minLength: 1, maxLength: 300 } },
});

export function policyRoutes(deps: { policy: WorkspacePolicy; auth: AuthService }) {
  const { policy, auth } = deps;
  const { store, caps } = policy;

  /** The gateway level as `caller` may see it: a non-admin sees no built-in folders and nothing inside the data folder but its own. */
  const gatewayAnswer = (caller: Principal) => {
    const admin = auth.isAdmin(caller);
    const gateway = store.gateway();
    // A non-admin sees only rows he may use, and none of them names the data folder (his own rows there are shown relative to it).
    const shown = admin ? gateway : caps.masked(visibleGateway({ caps, gateway, account: caller.account }));
    return {
      ok: true,
      policy: {
        posture: shown.posture,
        default_mode: shown.default_mode,
        folders: shown.folders,
        builtin_refused: admin ? caps.refusals.list().map((f) => f.path) : [],
        ...(admin ? {} : { builtin_refused_hidden: true }),
        max_attachment_bytes: policy.maxAttachmentBytes,
        summary: summaryOf(shown),
        command_sandbox: COMMAND_SANDBOX,
      },
    };
  };

  /** Rows as `caller` may see them: to a non-admin, a row inside the data folder is shown relative to it. */
  const rowsFor = (caller: Principal, rows: PolicyLayer['folders']) => (auth.isAdmin(caller) ? rows : rows.map((row) => ({ ...row, path: caps.maskedPath(row.path) })));

  /** What an account's level reads as: its stored layer, else what it follows (`configured: false`). */
  const accountAnswer = (named: NamedAccount, caller: Principal) => {
    const stored = store.account(named.account);
    if (stored) return { account: named.shown, configured: true, posture: stored.posture, default_mode: stored.default_mode, folders: rowsFor(caller, stored.folders), updated_at: stored.updated_at, updated_by: stored.updated_by };
    return { account: named.shown, configured: false, ...followed(named) };
  };

  /** The base an unconfigured account level shows: the non-admin default, else the gateway's posture and default, no rows. */
  const followed = (named: NamedAccount) => {
    if (!named.admin && policy.settings.nonAdmin === 'own_folders') return { follows: 'own_folders', posture: OWN_FOLDER_LAYER.posture, default_mode: OWN_FOLDER_LAYER.default_mode, folders: [] };
    const gateway = store.gateway();
    return { follows: 'gateway', posture: gateway.posture, default_mode: gateway.default_mode, folders: [] };
  };

  const sessionAnswer = (named: NamedAccount, sessionId: string, caller: Principal) => {
    const stored = store.session(named.account, sessionId);
    if (stored) return { session_id: sessionId, account: named.shown, configured: true, posture: stored.posture, default_mode: stored.default_mode, folders: rowsFor(caller, stored.folders), updated_at: stored.updated_at, updated_by: stored.updated_by };
    const below = policy.chosen(named.account, null, named.admin);
    const base = below.layer ? { follows: below.nonAdminDefault ? 'own_folders' : 'account', posture: below.layer.posture, default_mode: below.layer.default_mode } : { follows: 'gateway', posture: store.gateway().posture, default_mode: store.gateway().default_mode };
    return { session_id: sessionId, account: named.shown, configured: false, ...base, folders: [] };
  };

  /** The session's owner: the caller, or the account an admin names with `?account=`. */
  const sessionOwner = (caller: Principal, account: string | undefined): NamedAccount => {
    if (account === undefined) return { account: caller.account, shown: shownAccount(caller), admin: auth.isAdmin(caller) };
    if (!auth.isAdmin(caller)) {
      const mine = account === caller.account || account === shownAccount(caller) || account === 'me';
      if (!mine) throw forbidden("Only an admin may name another account's session; leave out ?account= for your own.");
    }
    return resolveAccount(auth, caller, account, ROUTE, "a session's workspaces");
  };

  /**
   * A write to an account or session level: `{configured: false}` forgets it; otherwise the named
   * fields replace the stored ones (or the gateway's posture and default with no rows) and the
   * whole layer is checked against the gateway.
   */
  const layerWrite = async (body: unknown, level: 'account' | 'session', owner: NamedAccount, stored: StoredLayer | null, actor: Principal): Promise<{ layer: StoredLayer | null; changed: string[] }> => {
    const record = body && typeof body === 'object' && !Array.isArray(body) ? body : null;
    if (record && 'configured' in record) {
      if (typeof record.configured !== 'boolean') refuse('configured must be true or false; nothing was saved.');
      if (record.configured === false) {
        if (['posture', 'default_mode', 'folders'].some((k) => k in record)) refuse('configured: false follows the level above again; it cannot come with posture, default_mode or folders. Nothing was saved.');
        return { layer: null, changed: ['configured'] };
      }
    }
    const named = namedFields(body, level);
    const gateway = store.gateway();
    const base: PolicyLayer = stored ?? { posture: gateway.posture, default_mode: gateway.default_mode, folders: [] };
    const merged = { ...base, ...named };
    const layer = await validateLayer(merged, level, policy.rules(owner.account, auth.isAdmin(actor), gateway));
    return { layer: { ...layer, updated_at: new Date().toISOString(), updated_by: shownAccount(actor) }, changed: Object.keys(named) };
  };

  return [
    route({
      method: 'GET',
      path: '/workspace/policy',
      tags: ['workspaces'],
      summary: 'The gateway workspace policy (a non-admin sees no built-in folders)',
      handler: ({ principal }) => gatewayAnswer(principal),
    }),
    route({
      method: 'PUT',
      path: '/workspace/policy',
      auth: 'admin',
      tags: ['workspaces'],
      summary: 'Change the gateway workspace policy: named fields of {posture, default_mode, folders} replace, others are kept',
      body: anyObject,
      handler: ({ principal, body }) =>
        refusing(async () => {
          const named = namedFields(body, 'gateway');
          const gateway = store.gateway();
          const merged = { ...gateway, ...named };
          const layer = await validateLayer(merged, 'gateway', policy.rules(principal.account, true, merged as PolicyLayer));
          await store.putGateway(layer, auditRecord(principal, 'gateway', Object.keys(named)));
          return gatewayAnswer(principal);
        }),
    }),
    route({
      method: 'GET',
      path: '/workspace/policy/:account',
      params: accountParams,
      tags: ['workspaces'],
      summary: "An account's workspace policy (admin; `me` for your own)",
      handler: ({ principal, params }) => accountAnswer(resolveAccount(auth, principal, params.account, ROUTE, 'the workspace policy'), principal),
    }),
    route({
      method: 'PUT',
      path: '/workspace/policy/:account',
      params: accountParams,
      auth: 'admin',
      tags: ['workspaces'],
      summary: "Set an account's workspace policy; {configured: false} follows the gateway again",
      body: anyObject,
      handler: ({ principal, params, body }) =>
        refusing(async () => {
          const named = resolveAccount(auth, principal, params.account, ROUTE, 'the workspace policy');
          const { layer, changed } = await layerWrite(body, 'account', named, store.account(named.account), principal);
          await store.putAccount(named.account, layer, auditRecord(principal, 'account', changed, { account: named.shown }));
          return accountAnswer(named, principal);
        }),
    }),
    route({
      method: 'GET',
      path: '/sessions/:session_id/workspaces',
      params: sessionParams,
      query: sessionQuery,
      tags: ['workspaces'],
      summary: "A session's workspaces (its owner, or an admin with ?account=<tenant:name>)",
      handler: ({ principal, params, query }) => sessionAnswer(sessionOwner(principal, query.account), params.session_id, principal),
    }),
    route({
      method: 'PUT',
      path: '/sessions/:session_id/workspaces',
      params: sessionParams,
      query: sessionQuery,
      tags: ['workspaces'],
      summary: "Set a session's workspaces (rows checked against the gateway's eligible set; stored in the owner's plane)",
      body: anyObject,
      handler: ({ principal, params, query, body }) =>
        refusing(async () => {
          const owner = sessionOwner(principal, query.account);
          const { layer, changed } = await layerWrite(body, 'session', owner, store.session(owner.account, params.session_id), principal);
          await store.putSession(owner.account, params.session_id, layer, auditRecord(principal, 'session', changed, { account: owner.shown, session_id: params.session_id }));
          return sessionAnswer(owner, params.session_id, principal);
        }),
    }),
  ];
}
