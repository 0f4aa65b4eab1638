/**
 * `@keel/plugin-memory`: the origin's memory node types (reference runtime-nodes §8) for gateway
 * runs: span memory (`memory_note`, `memory_query`, `memory_tag`, `memory_compact`,
 * `memory_rehydrate`), the knowledge graph (`memory_kg_assert`, `memory_kg_query`,
 * `memory_kg_resolve`) and MemAct active memory (`memact_compose`), stored in LMDB per account,
 * with routes to inspect and delete an account's memory.
 */
import { core, definePlugin, optional } from '@keel/plugin-sdk';
import { nodeTypesToken } from '@keel/plugin-gateway-runs';
import { inferenceToken } from '@keel/plugin-inference';
import { Embedder } from './embedder.js';
import { KgStore } from './kg-store.js';
import { memoryConfigSchema } from './memory-config.js';
import type { MemoryDeps } from './memory-deps.js';
import { kgAssertNode } from './nodes/kg-assert.js';
import { kgQueryNode } from './nodes/kg-query.js';
import { kgResolveNode } from './nodes/kg-resolve.js';
import { memactComposeNode } from './nodes/memact-compose.js';
import { memoryCompactNode } from './nodes/memory-compact.js';
import { memoryNoteNode } from './nodes/memory-note.js';
import { memoryQueryNode } from './nodes/memory-query.js';
import { memoryRehydrateNode } from './nodes/memory-rehydrate.js';
import { memoryTagNode } from './nodes/memory-tag.js';
import { memoryRoutes } from './routes/memory-routes.js';
import { SpanStore } from './span-store.js';

export type { MemoryConfig } from './memory-config.js';
/** A knowledge-graph triple as `memory_kg_query` answers it and `GET /memory/kg` lists it. */
export type { Triple } from './kg-store.js';

export const memoryPlugin = definePlugin({
  id: 'memory',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'Memory node types for runs (spans, knowledge graph, active memory) in LMDB per account, and routes to inspect and delete it',
  configSchema: memoryConfigSchema,
  defaultPrefix: '/api/gateway',
  deps: { storage: core.storage, nodeTypes: nodeTypesToken, inference: optional(inferenceToken) },
  setup({ config, deps }) {
    const spans = new SpanStore(deps.storage, () => config.maxSpansPerOwner);
    const kg = new KgStore(deps.storage, () => config.kgMaxTriplesPerOwner);
    const inference = deps.inference ?? null;
    const memory: MemoryDeps = { spans, kg, config, inference, embedder: inference && config.embeddingModel ? new Embedder(inference, config.embeddingModel) : null };
    deps.nodeTypes.register('memory', {
      memory_note: memoryNoteNode(memory),
      memory_query: memoryQueryNode(memory),
      memory_tag: memoryTagNode(memory),
      memory_compact: memoryCompactNode(memory),
      memory_rehydrate: memoryRehydrateNode(memory),
      memory_kg_assert: kgAssertNode(memory),
      memory_kg_query: kgQueryNode(memory),
      memory_kg_resolve: kgResolveNode(memory),
      memact_compose: memactComposeNode(),
    });
    return { routes: memoryRoutes(spans, kg, config) };
  },
});

export default memoryPlugin;
