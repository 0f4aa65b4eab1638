/**
 * The SDK's storage handle for worker threads (`PluginStorage.workerHandle` + `openWorkerStorage`
 * from `@keel/plugin-sdk/worker`), through HTTP on the real boot path: a note written on the main
 * thread is read by the plugin's worker thread from the same LMDB environment, with the sub-database
 * options the plugin gave (JSON values), and the handle carries the kernel's environment options.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { workerStoragePlugin } from './fixtures/worker-storage-plugin.js';

describe('SDK storage handle for worker threads', () => {
  let kernel: TestKernel;
  before(async () => {
    kernel = await createTestKernel({ plugins: [workerStoragePlugin], config: { server: { logLevel: 'silent' } } });
  });
  after(() => kernel.stop());

  const call = (method: string, url: string, payload?: unknown) => kernel.inject({ method, url: `/api/worker-storage${url}`, token: kernel.adminToken, ...(payload ? { payload } : {}) });

  it('is a plain value naming the sub-database, with the kernel environment options and the plugin database options', async () => {
    const res = await call('GET', '/handle');
    expect(res.statusCode).to.equal(200);
    const handle = res.json<{ path: string; dbName: string; env: Record<string, unknown>; db: Record<string, unknown> }>();
    expect(handle.dbName).to.equal('worker-storage:notes');
    expect(handle.path).to.match(/[/\\]db$/);
    // The kernel opens its environment with synced commits (overlappingSync off), uncompressed: the worker must agree.
    expect(handle.env).to.include({ overlappingSync: false, compression: false });
    expect(handle.env.maxDbs).to.be.a('number').above(0);
    expect(handle.db).to.deep.equal({ encoding: 'json' });
  });

  it('lets the worker thread read what the main thread committed, including commits made after its first read', async () => {
    expect((await call('PUT', '/notes/a', { text: 'first' })).statusCode).to.equal(200);
    const first = await call('GET', '/notes/a');
    expect(first.statusCode).to.equal(200);
    expect(first.json()).to.deep.equal({ id: 'a', text: 'first', thread: 'worker' });

    await call('PUT', '/notes/a', { text: 'second' });
    expect((await call('GET', '/notes/a')).json()).to.deep.include({ text: 'second' });
    expect((await call('GET', '/notes/missing')).statusCode).to.equal(404);
  });
});
