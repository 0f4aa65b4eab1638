/** Shared by the policy routes: the refusal shape, the command-sandbox block and the audit record. */
import { badRequest, defineSchema, KEY_ID_MAX_LENGTH, type Principal } from '@keel/plugin-sdk';
import { shownAccount } from '../account-names.js';
import type { AuditRecord } from '../audit-log.js';
import { WorkspaceRefused } from '../workspace-service.js';

/** Runs `fn`; a `WorkspaceRefused` becomes 400 `{detail: {reason: 'workspace_refused', message, path}}`. */
export async function refusing<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof WorkspaceRefused) throw badRequest({ reason: 'workspace_refused', message: err.message, path: err.path });
    throw err;
  }
}

export function auditRecord(actor: Principal, scope: AuditRecord['scope'], changed: string[], extra: Pick<AuditRecord, 'account' | 'session_id'> = {}): AuditRecord {
  return { ts: new Date().toISOString(), event: 'workspace_policy_changed', scope, actor: shownAccount(actor), changed, ...extra };
}

/**
 * The seed's `command_sandbox` block, told truthfully: Keel runs no shell commands (no node or tool
 * starts a process), so commands are refused rather than sandboxed, and nothing can be configured.
 */
export const COMMAND_SANDBOX = {
  state: 'refused',
  kind: 'none',
  line: 'Shell commands: none (Keel runs no shell commands)',
  sentence: 'Keel runs no shell commands: no workflow node or agent tool starts a process, so there is nothing to sandbox and no setting turns commands on.',
  unsandboxed_commands_allowed: false,
  configured: false,
  flag: null,
} as const;

export const accountParams = defineSchema({
  type: 'object',
  required: ['account'],
  properties: { account: { type: 'string', minLength: 1, maxLength: 300 } },
});

export const sessionParams = defineSchema({
  type: 'object',
  required: ['session_id'],
  properties: { session_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH } },
});

/** A JSON object body: the routes check its fields themselves (refusals in the seed's shape). */
export const anyObject = defineSchema({ type: 'object', additionalProperties: true });
