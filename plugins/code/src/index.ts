/**
 * `@keel/plugin-code`: the VisualFlow `code` node (runtime-nodes §4). The flow's Python runs in
 * Pyodide inside worker threads, with the origin's static checks, builtins, error texts and output
 * record, cut off from JavaScript, the network and the host's files, within a time and a memory
 * budget per call.
 */
import { definePlugin } from '@keel/plugin-sdk';
import { nodeTypesToken } from '@keel/plugin-gateway-runs';
import { codeNode } from './code-node.js';
import { codeConfigSchema } from './code-config.js';
import { codeRoutes } from './code-routes.js';
import { SandboxPool } from './sandbox-pool.js';

export type { CodeConfig } from './code-config.js';
export { codeSourceOf, pinLocalName, permissionModeOf } from './code-source.js';

const PREFIX = '/api/gateway';

export const codePlugin = definePlugin({
  id: 'code',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'The VisualFlow code node: Python in a Pyodide sandbox with time and memory budgets',
  configSchema: codeConfigSchema,
  defaultPrefix: PREFIX,
  guardUnmatched: true,
  deps: { nodeTypes: nodeTypesToken },
  setup({ config, deps }) {
    if (config.warmWorkers > config.maxWorkers) throw new Error(`the code plugin's warmWorkers (${config.warmWorkers}) cannot exceed its maxWorkers (${config.maxWorkers}).`);
    const pool = new SandboxPool(config);
    deps.nodeTypes.register('code', { code: codeNode(pool, config.allowFullAccess) });
    return { routes: codeRoutes(pool, config, PREFIX), start: () => pool.warm(), stop: () => pool.close() };
  },
});

export default codePlugin;
