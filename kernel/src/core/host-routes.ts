/**
 * Host state, admin only: `GET /api/gateway/host/status` (this machine and process, the data
 * directory's disk) and `GET /api/gateway/processes` (the processes sharing the data directory, by
 * their heartbeat files, and this process's worker pools). Gateway-runs serves `/host/runner`.
 */
import { defineSchema, route } from '@keel/plugin-sdk';
import type { CoreContext } from './core-context.js';

const bytes = { type: 'integer', minimum: 0 } as const;
const isoTime = { type: 'string', format: 'date-time' } as const;

const hostStatusSchema = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['hostname', 'platform', 'arch', 'os_release', 'versions', 'process', 'system', 'data_dir'],
  properties: {
    hostname: { type: 'string' },
    platform: { type: 'string', description: 'Node\'s process.platform: linux, darwin, win32, ...' },
    arch: { type: 'string' },
    os_release: { type: 'string' },
    versions: {
      type: 'object',
      additionalProperties: false,
      required: ['keel', 'sdk', 'node', 'v8'],
      properties: { keel: { type: 'string' }, sdk: { type: 'string' }, node: { type: 'string' }, v8: { type: 'string' } },
    },
    process: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'pid', 'name', 'mode', 'started_at', 'uptime_s', 'memory'],
      description: 'The process answering; `id` is its entry in /processes.',
      properties: {
        id: { type: 'string' }, pid: { type: 'integer' }, name: { type: 'string' }, mode: { type: 'string' }, started_at: isoTime, uptime_s: { type: 'number' },
        memory: {
          type: 'object',
          additionalProperties: false,
          required: ['rss_bytes', 'heap_used_bytes', 'heap_total_bytes', 'external_bytes'],
          properties: { rss_bytes: bytes, heap_used_bytes: bytes, heap_total_bytes: bytes, external_bytes: bytes },
        },
      },
    },
    system: {
      type: 'object',
      additionalProperties: false,
      required: ['uptime_s', 'cpus', 'load_average', 'memory'],
      properties: {
        uptime_s: { type: 'number' },
        cpus: { type: 'integer' },
        load_average: { type: 'array', items: { type: 'number' }, minItems: 3, maxItems: 3, description: '1, 5 and 15 minutes (zeros on Windows).' },
        memory: { type: 'object', additionalProperties: false, required: ['total_bytes', 'free_bytes'], properties: { total_bytes: bytes, free_bytes: bytes } },
      },
    },
    data_dir: {
      type: 'object',
      additionalProperties: false,
      required: ['path', 'disk', 'usage', 'storage'],
      properties: {
        path: { type: 'string' },
        disk: {
          type: ['object', 'null'],
          additionalProperties: false,
          required: ['total_bytes', 'free_bytes'],
          description: 'The file system holding the data directory; `free_bytes` is what this user may still write. Null where the platform cannot say.',
          properties: { total_bytes: bytes, free_bytes: bytes },
        },
        usage: {
          type: 'object',
          additionalProperties: false,
          required: ['bytes', 'files', 'folders', 'complete', 'measured_at'],
          description: 'Disk the data directory takes (allocated blocks, as du counts), per top-level entry; measured at most every server.hostStatus.dataScanCacheMs.',
          properties: {
            bytes, files: { type: 'integer', minimum: 0 },
            folders: {
              type: 'array',
              items: { type: 'object', additionalProperties: false, required: ['name', 'bytes', 'files'], properties: { name: { type: 'string' }, bytes, files: { type: 'integer', minimum: 0 } } },
            },
            complete: { type: 'boolean', description: 'False when the walk stopped at server.hostStatus.dataScanMaxEntries: the figures are lower bounds.' },
            measured_at: isoTime,
          },
        },
        storage: {
          type: 'object',
          additionalProperties: false,
          required: ['last_commit_id'],
          properties: {
            last_commit_id: { type: 'integer', minimum: 0, description: 'The id of the LMDB environment\'s last commit, by any process sharing the data directory: it grows by one per synced commit, so its change over a stretch of work is how many commits that work cost.' },
          },
        },
      },
    },
  },
});

const poolSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'threads', 'min_threads', 'max_threads', 'queue', 'completed'],
  properties: {
    name: { type: 'string', description: '<plugin id>:<pool name>' },
    threads: { type: 'integer', minimum: 0 },
    min_threads: { type: 'integer', minimum: 0 },
    max_threads: { type: 'integer', minimum: 0 },
    queue: { type: 'integer', minimum: 0 },
    completed: { type: 'integer', minimum: 0 },
  },
} as const;

const processSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'pid', 'name', 'mode', 'hostname', 'kernel_version', 'started_at', 'last_heartbeat_at', 'heartbeat_age_s', 'alive', 'dead_reason', 'current', 'worker_pools'],
  properties: {
    id: { type: 'string' },
    pid: { type: 'integer' },
    name: { type: 'string', description: '`server`, `runner`, or a one-shot command\'s name (never its arguments).' },
    mode: { type: 'string', enum: ['server', 'embedded', 'test', 'cli', 'headless'] },
    hostname: { type: 'string' },
    kernel_version: { type: 'string' },
    started_at: isoTime,
    last_heartbeat_at: isoTime,
    heartbeat_age_s: { type: 'number' },
    alive: { type: 'boolean' },
    dead_reason: { type: ['string', 'null'], enum: ['heartbeat_stale', 'process_gone', null] },
    current: { type: 'boolean', description: 'True for the process answering.' },
    worker_pools: { type: 'array', items: poolSchema, description: 'Its worker pools: now for the process answering, else as of its last heartbeat.' },
  },
} as const;

const processesSchema = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['processes', 'worker_pools', 'heartbeat_interval_s', 'stale_after_s'],
  properties: {
    processes: { type: 'array', items: processSchema, description: 'The process answering first, then by start time.' },
    worker_pools: { type: 'array', items: poolSchema, description: 'The worker pools of the process answering.' },
    heartbeat_interval_s: { type: 'number' },
    stale_after_s: { type: 'number' },
  },
});

export function hostRoutes(core: CoreContext) {
  return [
    route({
      method: 'GET',
      path: '/api/gateway/host/status',
      auth: 'admin',
      tags: ['host'],
      summary: 'This machine and process: versions, uptime, memory, load, and the data directory\'s free disk and size',
      responses: { 200: { schema: hostStatusSchema } },
      handler: () => core.hostState.status(),
    }),
    route({
      method: 'GET',
      path: '/api/gateway/processes',
      auth: 'admin',
      tags: ['host'],
      summary: 'The processes sharing the data directory (server, keel runner, one-shot commands), alive or dead, and this process\'s worker pools',
      responses: { 200: { schema: processesSchema } },
      handler: () => core.hostState.processes(),
    }),
  ];
}
