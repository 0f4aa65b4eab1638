/**
 * The effective set and its dry run (seed §4.5, reference §1.3), the path check any signed-in
 * principal may use, and the admin's view of the audit log.
 */
import { badRequest, defineSchema, KEY_ID_MAX_LENGTH, route, type AuthService, type Principal } from '@keel/plugin-sdk';
import { resolveAccount } from '../account-names.js';
import type { AuditLog } from '../audit-log.js';
import { checkedPath, validateWholeLayer } from '../layer-rules.js';
import type { WorkspacePolicy } from '../workspace-policy.js';
import { accountParams, anyObject, refusing } from './route-helpers.js';

const ROUTE = '/api/gateway/workspace/effective';

const effectiveQuery = defineSchema({
  type: 'object',
  properties: { session: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH } },
});

const auditQuery = defineSchema({
  type: 'object',
  properties: { after: { type: 'integer', minimum: 0, default: 0 }, limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
});

export function effectiveRoutes(deps: { policy: WorkspacePolicy; auth: AuthService; audit: AuditLog }) {
  const { policy, auth, audit } = deps;
  const named = (caller: Principal, account: string) => resolveAccount(auth, caller, account, ROUTE, 'the effective workspaces');
  return [
    route({
      method: 'GET',
      path: '/workspace/effective/:account',
      params: accountParams,
      query: effectiveQuery,
      tags: ['workspaces'],
      summary: 'The effective workspace set of an account (and a session): yours with `me`, any account for an admin',
      handler: ({ principal, params, query }) => {
        const who = named(principal, params.account);
        return policy.effectiveWith(who.account, query.session ?? null, who.admin, undefined, who.shown, !auth.isAdmin(principal));
      },
    }),
    route({
      method: 'POST',
      path: '/workspace/effective/:account',
      params: accountParams,
      tags: ['workspaces'],
      summary: 'Dry run: the effective set with {workspace: layer or null, session?} in place of the stored level; nothing is stored',
      body: anyObject,
      handler: ({ principal, params, body }) =>
        refusing(async () => {
          const who = named(principal, params.account);
          const { workspace, session, ...rest } = body;
          const unknown = Object.keys(rest);
          if (unknown.length) throw badRequest(`Unknown field(s) [${unknown.slice(0, 10).join(', ')}]; a dry run takes {workspace, session?}.`);
          if (session !== undefined && session !== null && (typeof session !== 'string' || session === '' || session.length > KEY_ID_MAX_LENGTH)) {
            throw badRequest(`session must be a session id (1 to ${KEY_ID_MAX_LENGTH} characters).`);
          }
          const sessionId = typeof session === 'string' ? session : null;
          if (workspace === undefined) throw badRequest('workspace is required: a layer {posture, default_mode, folders}, or null for the level left unconfigured.');
          const level = sessionId ? 'session' : 'account';
          const layer = workspace === null ? null : await validateWholeLayer(workspace, level, policy.rules(who.account, auth.isAdmin(principal)));
          return policy.effectiveWith(who.account, sessionId, who.admin, layer, who.shown, !auth.isAdmin(principal));
        }),
    }),
    route({
      method: 'POST',
      path: '/workspace/path-check',
      tags: ['workspaces'],
      summary: 'Whether a path can be a workspace: {path} → {path, normalized, absolute, exists, is_dir, valid, sentence}',
      body: anyObject,
      handler: async ({ principal, body }) => {
        // A non-admin learns nothing about protected folders (the data folder's place above all): they read as missing.
        const { real: _real, problem: _problem, ...check } = await checkedPath(body.path, policy.rules(principal.account, auth.isAdmin(principal)));
        return check;
      },
    }),
    route({
      method: 'GET',
      path: '/workspace/audit',
      auth: 'admin',
      query: auditQuery,
      tags: ['workspaces'],
      summary: 'The audit log of workspace policy changes (workspace_policy_changed records), oldest first',
      handler: ({ query }) => audit.page(query.after, query.limit),
    }),
  ];
}
