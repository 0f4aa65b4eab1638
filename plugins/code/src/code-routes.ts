/**
 * The Code-node routes of the gateway (reference runtime-nodes §4): `GET
 * /visualflows/code/policy` answers the `code_execution_policy_v1` contract (which modes this host
 * runs), `POST /visualflows/code/simulate` runs a `code` node's source once in the same sandbox,
 * with the same budgets, without starting a run (the editor's "test" button).
 */
import { badRequest, defineSchema, forbidden, route, tooManyRequests, type AnyRoute } from '@keel/plugin-sdk';
import { permissionModeOf } from './code-source.js';
import { FULL_ACCESS_REFUSED } from './code-node.js';
import { SandboxError, type SandboxPool } from './sandbox-pool.js';
import type { CodeConfig } from './code-config.js';

const SIMULATE_PATH = '/visualflows/code/simulate';
/** Longest source the simulate route takes (a flow's code node is rarely over a few KiB). */
const MAX_SOURCE_CHARS = 256 * 1024;

const simulateBody = defineSchema({
  type: 'object',
  required: ['code'],
  additionalProperties: false,
  properties: {
    code: { type: 'string', maxLength: MAX_SOURCE_CHARS },
    input: { type: ['object', 'null'] },
    function_name: { type: ['string', 'null'], maxLength: 256 },
    permissions: { type: ['string', 'null'], maxLength: 64 },
  },
});

/** The policy as the origin's editors read it, and (Keel's addition) the sandbox workers' state. */
export function codePolicy(prefix: string, allowFullAccess: boolean, workers: { warm: number; max: number; ready: number; loading: number }) {
  return {
    contract: 'code_execution_policy_v1',
    version: 1,
    available: true,
    default_mode: 'sandbox',
    simulate: { available: true, endpoint: `${prefix}${SIMULATE_PATH}` },
    workers,
    modes: [
      { id: 'sandbox', label: 'Sandbox', available: true, default: true, safety: 'pyodide_restricted_builtins', description: 'Python in a WebAssembly sandbox with imports and unsafe constructs disabled.' },
      {
        id: 'full_access',
        label: 'Full access',
        available: allowFullAccess,
        requires_host_policy: true,
        ...(allowFullAccess ? {} : { disabled_reason: "Disabled by execution-host policy (the code plugin's allowFullAccess setting)." }),
        description: 'Python with full builtins and imports, for trusted flow authors only.',
      },
    ],
  };
}

export function codeRoutes(pool: SandboxPool, config: Pick<CodeConfig, 'allowFullAccess' | 'maxSimulatePerAccount' | 'warmWorkers' | 'maxWorkers'>, prefix: string): AnyRoute[] {
  const { allowFullAccess, maxSimulatePerAccount } = config;
  // Simulate calls share the run's sandbox workers and queue without bound: one account's flood of
  // endless loops would keep every other account's code waiting (and the queue growing).
  const inFlight = new Map<string, number>();
  return [
    route({
      method: 'GET',
      path: '/visualflows/code/policy',
      summary: 'The Code node execution policy (code_execution_policy_v1): the permission modes this host runs',
      tags: ['code'],
      handler: () => codePolicy(prefix, allowFullAccess, { warm: config.warmWorkers, max: config.maxWorkers, ...pool.status() }),
    }),
    route({
      method: 'POST',
      path: SIMULATE_PATH,
      summary: "Run a Code node's Python once in the sandbox, without a run: {code, input, function_name, permissions}",
      tags: ['code'],
      body: simulateBody,
      handler: async ({ body, signal, principal }) => {
        const mode = permissionModeOf(body.permissions ?? null);
        if (typeof mode !== 'string') throw badRequest(`${mode.error}; use 'sandbox' or 'full_access'.`);
        if (mode === 'full_access' && !allowFullAccess) throw forbidden(FULL_ACCESS_REFUSED);
        const account = principal!.account;
        const held = inFlight.get(account) ?? 0;
        if (held >= maxSimulatePerAccount) {
          throw tooManyRequests(`Account '${account}' already has ${held} code simulations queued or running, the most one account may have at once (the code plugin's maxSimulatePerAccount); wait for one to answer.`);
        }
        inFlight.set(account, held + 1);
        const functionName = body.function_name || 'transform';
        const diagnostics = { source: 'keel.code_sandbox', requested_mode: body.permissions ?? 'sandbox', mode, function_name: functionName };
        try {
          // A client that goes away stops its call (its worker is replaced).
          const outcome = await pool.run({ source: body.code, function_name: functionName, input_json: JSON.stringify(body.input ?? {}), mode }, signal, account);
          const execution = { ...outcome.execution, permissions: mode };
          return outcome.ok
            ? { ok: true, success: true, output: outcome.value, result: outcome.value, execution, error: null, diagnostics }
            : { ok: true, success: false, output: null, result: null, execution, error: outcome.error, diagnostics };
        } catch (err) {
          if (!(err instanceof SandboxError)) throw err;
          return { ok: true, success: false, output: null, result: null, execution: null, error: err.message, diagnostics };
        } finally {
          const left = (inFlight.get(account) ?? 1) - 1;
          if (left > 0) inFlight.set(account, left);
          else inFlight.delete(account);
        }
      },
    }),
  ] as AnyRoute[];
}
