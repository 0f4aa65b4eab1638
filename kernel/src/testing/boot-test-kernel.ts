/**
 * The kernel side of `@keel/plugin-sdk/testing`: the real boot path on a temporary data dir,
 * with `inject()` (no socket, via light-my-request) and `listen()` (a real port).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject as lightInject } from 'light-my-request';
import { isPlugin } from '@keel/plugin-sdk';
import type { BootTestKernel, InjectRequest, InjectResponse, TestKernel, TestKernelOptions } from '@keel/plugin-sdk/testing';
import { buildConfig } from '../config/load-config.js';
import { Kernel, type InlinePlugin } from '../kernel.js';

export const bootTestKernel: BootTestKernel = async (options: TestKernelOptions): Promise<TestKernel> => {
  const ownDir = !options.dataDir;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'keel-test-'));
  const raw = structuredClone(options.config ?? {}) as { server?: Record<string, unknown> };
  // Declared response schemas are checked in tests unless a test turns it off.
  raw.server = { logLevel: 'warn', port: 0, validateResponses: true, ...raw.server, dataDir };
  const { config } = buildConfig(raw, {}, { file: null, baseDir: options.baseDir ?? process.cwd() });
  const inlinePlugins: InlinePlugin[] = (options.plugins ?? []).map((p) =>
    isPlugin(p) ? { plugin: p } : { ...(p as InlinePlugin) },
  );
  let kernel: Kernel;
  try {
    kernel = await Kernel.boot({ config, mode: 'test', inlinePlugins, overrides: options.overrides, baseDir: options.baseDir, env: { ...process.env, KEEL_ADMIN_TOKEN: '' } });
  } catch (err) {
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const handler = kernel.callback();
  let stopped: Promise<void> | undefined;
  return {
    dataDir,
    adminToken: kernel.adminToken,
    inject: (request) => inject(handler, request),
    listen: async () => {
      const address = await kernel.listen(0, '127.0.0.1');
      return { url: `http://127.0.0.1:${address.port}`, port: address.port };
    },
    resolve: (token) => kernel.resolve(token),
    stop: () => (stopped ??= kernel.stop().finally(() => {
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    })),
  };
};

async function inject(handler: ReturnType<Kernel['callback']>, request: InjectRequest): Promise<InjectResponse> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.token) headers.authorization = `Bearer ${request.token}`;
  let payload: string | Buffer | undefined;
  if (request.payload !== undefined) {
    if (typeof request.payload === 'string' || Buffer.isBuffer(request.payload)) {
      payload = request.payload;
    } else {
      payload = JSON.stringify(request.payload);
      headers['content-type'] ??= 'application/json';
    }
  }
  const res = await lightInject(handler, {
    method: (request.method ?? 'GET') as 'GET',
    url: request.url,
    headers,
    ...(payload !== undefined ? { payload } : {}),
    ...(request.remoteAddress ? { remoteAddress: request.remoteAddress } : {}),
  });
  return {
    statusCode: res.statusCode,
    headers: res.headers,
    body: res.body,
    rawPayload: res.rawPayload,
    json: <T>() => JSON.parse(res.body) as T,
  };
}
