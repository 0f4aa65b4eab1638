import { expect } from 'chai';
import { core, definePlugin, token } from '@keel/plugin-sdk';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { RelayConversations } from '../../plugins/relay/dist/storage/conversation-store.js';

/**
 * The `ConversationStore` the hosted lane replays conversations from (contracts.ts), on real LMDB
 * inside a kernel: seed items first, turns in order, at most `conversations.maxItems` turn items
 * (the oldest dropped), `latest_response_id`, nothing kept for a deleted conversation. (The HTTP
 * side of conversations is in relay-catalog-storage.)
 */
const storeToken = token<RelayConversations>('test.relay-conversations');
const storeProbe = definePlugin({
  id: 'relay-store-probe',
  version: '0.0.0',
  sdk: '^1.0.0',
  description: 'Opens the relay conversation store on its own storage (test only)',
  deps: { storage: core.storage, clock: core.clock },
  provides: storeToken,
  setup({ deps }) {
    const store = new RelayConversations(deps.storage, { maxConversations: 10, maxItems: 4, maxMetadataBytes: 1024 }, deps.clock);
    return { exports: store, routes: [], start: () => store.start() };
  },
});

describe('relay catalog: the conversation store', function () {
  this.timeout(60_000);
  let k: TestKernel;
  let store: RelayConversations;
  before(async () => {
    k = await createTestKernel({ plugins: [storeProbe] });
    store = k.resolve(storeToken);
  });
  after(() => k?.stop());

  it('replays the seed items, then every turn\'s input and output, oldest first, and keeps the latest response id', async () => {
    const conv = await store.create({}, [{ role: 'system', content: 'be brief' }]);
    expect(await store.history(conv.id)).to.deep.equal([{ role: 'system', content: 'be brief' }]);
    await store.appendTurn(conv.id, [{ role: 'user', content: 'q1' }], [{ role: 'assistant', content: 'a1' }], 'resp_1');
    await store.appendTurn(conv.id, [{ role: 'user', content: 'q2' }], [{ role: 'assistant', content: 'a2' }], 'resp_2');
    expect(await store.history(conv.id)).to.deep.equal([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'q1' }, { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' }, { role: 'assistant', content: 'a2' },
    ]);
    expect((await store.get(conv.id))!.latest_response_id).to.equal('resp_2');
  });

  it('keeps at most maxItems turn items, dropping the oldest, and always the seed items', async () => {
    const conv = await store.create({}, [{ seed: true }]);
    for (let i = 1; i <= 3; i++) await store.appendTurn(conv.id, [{ q: i }], [{ a: i }], `resp_${i}`);
    expect(await store.history(conv.id)).to.deep.equal([{ seed: true }, { q: 2 }, { a: 2 }, { q: 3 }, { a: 3 }]);
  });

  it('keeps nothing for a deleted or unknown conversation', async () => {
    const conv = await store.create({}, []);
    await store.appendTurn(conv.id, [{ q: 1 }], [{ a: 1 }], 'resp_1');
    expect(await store.delete(conv.id)).to.equal(true);
    await store.appendTurn(conv.id, [{ q: 2 }], [{ a: 2 }], 'resp_2');
    expect(await store.history(conv.id)).to.deep.equal([]);
    expect(await store.get(conv.id)).to.equal(null);
    expect(await store.history('conv_../../x')).to.deep.equal([]);
  });
});
