/**
 * `storage.transaction(fn)` is one atomic write: when `fn` throws, none of its writes are kept, even
 * when other transactions share the same commit; the ones that returned are kept. (lmdb-js batches
 * every transaction of an event turn into one commit and, without a child transaction per callback,
 * keeps the writes a throwing callback made before it threw.)
 */
import { expect } from 'chai';
import { badRequest, core, definePlugin, route } from '@keel/plugin-sdk';
import { createTestKernel } from '@keel/plugin-sdk/testing';

const counterPlugin = definePlugin({
  id: 'counter',
  version: '0.1.0',
  sdk: '^1.0.0',
  deps: { storage: core.storage },
  setup: ({ deps }) => {
    const db = deps.storage.openDB<number, string>('counts');
    return {
      routes: [
        // Writes two keys, then refuses when asked to: a refused call must leave both untouched.
        route({
          method: 'POST', path: '/count/:name', auth: 'public',
          handler: async (ctx) => deps.storage.transaction(() => {
            const { name } = ctx.params as { name: string };
            const next = (db.get(name) ?? 0) + 1;
            db.putSync(name, next);
            db.putSync('total', (db.get('total') ?? 0) + 1);
            if ((ctx.query as { refuse?: string }).refuse === 'yes') throw badRequest('refused after writing');
            return { count: next };
          }),
        }),
        route({ method: 'GET', path: '/count/:name', auth: 'public', handler: (ctx) => ({ count: db.get((ctx.params as { name: string }).name) ?? 0, total: db.get('total') ?? 0 }) }),
      ],
    };
  },
});

describe('SDK storage transactions', () => {
  it('keeps none of the writes of a transaction that throws, also inside a shared commit', async () => {
    const kernel = await createTestKernel({ plugins: [counterPlugin] });
    try {
      const refused = await kernel.inject({ method: 'POST', url: '/count/a?refuse=yes' });
      expect(refused.statusCode).to.equal(400);
      expect((await kernel.inject({ url: '/count/a' })).json()).to.deep.equal({ count: 0, total: 0 });
      // Several in one event turn (one commit): the refused ones leave no trace, the others count.
      const calls = await Promise.all(['b', 'c', 'b', 'c', 'b'].map((n, i) => kernel.inject({ method: 'POST', url: `/count/${n}${i % 2 ? '?refuse=yes' : ''}` })));
      expect(calls.map((c) => c.statusCode)).to.deep.equal([200, 400, 200, 400, 200]);
      expect((await kernel.inject({ url: '/count/b' })).json()).to.deep.equal({ count: 3, total: 3 });
      expect((await kernel.inject({ url: '/count/c' })).json()).to.deep.equal({ count: 0, total: 3 });
    } finally {
      await kernel.stop();
    }
  });
});
