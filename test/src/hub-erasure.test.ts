import { expect } from 'chai';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestKernel } from '@keel/plugin-sdk/testing';
import { hubPlugin } from '@keel/plugin-hub';
import { HubClient, verifyHeadSignature, verifyKeelLedger, verifyLedger, type Ledger, type LedgerSigningKey, type LedgerTurn } from '@keel/hub-client';
import { startHub, type HubHarness } from './helpers/hub.js';

// Verifiable erasure and signed ledger heads, through HTTP and @keel/hub-client's verifiers.
describe('hub: verifiable erasure and signed ledger heads', function () {
  this.timeout(120_000);
  let h: HubHarness;
  let keys: Record<'olga' | 'ann' | 'bob', string>;
  let url: string;

  before(async () => {
    h = await startHub();
    keys = await h.seats(['olga', 'ann', 'bob'] as const, ['olga']);
    await h.room('vault', keys.ann, [keys.bob, keys.olga]);
    url = (await h.kernel.listen()).url;
  });
  after(() => h?.stop());

  const client = (key: string): HubClient => new HubClient({ base_url: `${url}/hub`, bearer_token: key });

  async function post(key: string, body: string, extra: Record<string, unknown> = {}): Promise<{ id: string; seq: number }> {
    const res = await h.call('POST', '/channels/vault/messages', key, { body, ...extra });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  }

  async function upload(key: string, bytes: string): Promise<string> {
    const res = await fetch(`${url}/hub/channels/vault/attachments?filename=secret.txt`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain', 'x-hub-client': 'keel-tests/1' }, body: bytes });
    expect(res.status).to.equal(200);
    return ((await res.json()) as { id: string }).id;
  }

  async function ledger(): Promise<Ledger> {
    const res = await h.call('GET', '/channels/vault/ledger', keys.bob);
    expect(res.status).to.equal(200);
    return res.body as Ledger;
  }

  const blobPath = (id: string): string => path.join(h.kernel.dataDir, 'plugins', 'hub', 'attachments', 'blobs', id.slice(0, 2), id);

  it('every new row carries a Keel commitment the client verifies, and the reference chain is unchanged', async () => {
    await post(keys.ann, 'first words', { title: 'hello' });
    await post(keys.bob, 'second words — é 😀 \u2028', { title: 'ünïcode', data: { n: 2, f: 0.5, big: 1e21, nested: { z: [1, null, true], a: 'x' } } });
    const served = await ledger();
    const last = served.turns.at(-1)!;
    expect(last).to.include.keys('content_hash', 'content_salt', 'keel_hash', 'erased');
    expect(last.erased).to.equal(false);
    expect(served.keel_head).to.equal(last.keel_hash);
    expect(await verifyLedger(served)).to.include({ ok: true, redacted: 0 });
    expect(await verifyKeelLedger(served)).to.include({ ok: true, legacy: 0, committed_only: 0 });
    expect(served.verified).to.equal(true);
  });

  it('refuses erasure to non-operators and of a message that is not retracted', async () => {
    const m = await post(keys.ann, 'not yet retracted');
    const byAuthor = await h.call('POST', `/channels/vault/messages/${m.id}/erase`, keys.ann, {});
    expect(byAuthor.status).to.equal(403);
    expect(byAuthor.body.detail).to.match(/^erasing a message is an operator act/);
    const live = await h.call('POST', `/channels/vault/messages/${m.id}/erase`, keys.olga, {});
    expect(live.status).to.equal(409);
    expect(live.body.detail).to.match(/is not retracted — only a retracted message can be erased; retract it first/);
    expect((await h.call('POST', '/channels/vault/messages/01NOPE/erase', keys.olga, {})).status).to.equal(404);
    expect((await h.call('POST', `/channels/vault/messages/${m.id}/erase`, undefined, {})).status).to.equal(401);
    const row = (await ledger()).turns.find((t) => t.id === m.id)!;
    expect(row).to.include({ body: 'not yet retracted', erased: false });
  });

  it('erases a retracted message: bytes gone from the ledger, the store file and the attachment; both chains still verify', async () => {
    const marker = `zebracorn-${Date.now()}`;
    const blob = await upload(keys.ann, `attachment ${marker}`);
    const shared = await upload(keys.ann, 'shared bytes');
    const secret = await post(keys.ann, `the secret is ${marker}`, { title: 'secret', attachments: [{ id: blob }, { id: shared }] });
    await post(keys.bob, 'also carries the shared file', { attachments: [{ id: shared }] });
    await post(keys.bob, 'a row after the erased one');
    expect(existsSync(blobPath(blob))).to.equal(true);

    expect((await h.call('POST', `/channels/vault/messages/${secret.id}/retract`, keys.ann, {})).status).to.equal(200);
    const erased = await h.call('POST', `/channels/vault/messages/${secret.id}/erase`, h.kernel.adminToken, {});
    expect(erased.status, JSON.stringify(erased.body)).to.equal(200);
    expect(erased.body).to.include({ channel: 'vault', message_id: secret.id, seq: secret.seq, erased: true, erased_by: 'operator' });
    expect(erased.body.attachments_released).to.deep.equal([blob]);
    expect(erased.body.blobs_deleted).to.deep.equal([blob]);
    expect(existsSync(blobPath(blob))).to.equal(false, 'only the erased message carried it');
    expect(existsSync(blobPath(shared))).to.equal(true, 'another message still carries it');
    expect((await h.call('GET', `/channels/vault/attachments/${blob}`, keys.ann)).status).to.equal(404);

    const again = await h.call('POST', `/channels/vault/messages/${secret.id}/erase`, keys.olga, {});
    expect(again.status).to.equal(200);
    expect(again.body).to.include({ erased_at: erased.body.erased_at, erased_by: 'operator' });

    const served = await ledger();
    const row = served.turns.find((t) => t.id === secret.id)!;
    expect(row).to.include({ erased: true, retracted: true, content_salt: null, title: '' });
    expect(JSON.stringify(served)).not.to.contain(marker);
    expect(served.verified, 'the hub verifies its own chain').to.equal(true);
    expect(await verifyLedger(served)).to.include({ ok: true, redacted: 1 });
    expect(await verifyKeelLedger(served)).to.include({ ok: true, broken_at: null }).and.to.have.deep.property('erased', [secret.seq]);

    // No read surface serves the content any more (the stored row holds none of it).
    for (const read of [`/channels/vault/messages?since=0`, `/channels/vault/messages/${secret.id}`, `/channels/vault/ledger?verify=false`]) {
      const res = await h.call('GET', read, keys.olga);
      expect(res.status, read).to.equal(200);
      expect(res.raw.includes(Buffer.from(marker)), read).to.equal(false);
    }

    // The client's own verdict, from the front door.
    const verified = await client(keys.bob).ledger('vault');
    expect(verified.verification.ok).to.equal(true);
    expect(verified.keel_verification).to.include({ ok: true }).and.to.have.deep.property('erased', [secret.seq]);
    expect(verified.head_signature).to.equal('valid');

    // Search finds neither the erased words nor the row.
    const search = await h.call('GET', `/search?q=${marker}`, keys.ann);
    expect(search.status).to.equal(200);
    expect(search.body.messages.total).to.equal(0);
  });

  it('catches tampering with an erased row\'s commitments and with any other row', async () => {
    const served = await ledger();
    const erasedAt = served.turns.findIndex((t) => t.erased === true);
    expect(erasedAt).to.be.greaterThan(-1);
    const tamper = (index: number, change: Partial<LedgerTurn>): Ledger => ({ ...served, turns: served.turns.map((t, i) => (i === index ? { ...t, ...change } : t)) });
    const seqOf = (index: number): number => served.turns[index]!.seq;

    expect(await verifyKeelLedger(tamper(erasedAt, { content_hash: 'f'.repeat(64) }))).to.include({ ok: false, broken_at: seqOf(erasedAt) });
    // Reference verifiers only link an erased (retracted) row's hash; Keel's chain binds it.
    expect(await verifyKeelLedger(tamper(erasedAt, { hash: 'e'.repeat(64) }))).to.include({ ok: false, broken_at: seqOf(erasedAt) });
    expect(await verifyKeelLedger(tamper(erasedAt, { sender: 'mallory' }))).to.include({ ok: false, broken_at: seqOf(erasedAt) });
    expect(await verifyKeelLedger(tamper(erasedAt, { keel_hash: 'd'.repeat(64) }))).to.include({ ok: false, broken_at: seqOf(erasedAt) });
    const other = erasedAt + 1;
    expect(await verifyKeelLedger(tamper(other, { body: 'rewritten' }))).to.include({ ok: false, broken_at: seqOf(other) });
    expect(await verifyLedger(tamper(other, { body: 'rewritten' }))).to.include({ ok: false, broken_at: seqOf(other) });
    expect(await verifyKeelLedger(tamper(0, { created_at: served.turns[0]!.created_at + 1 }))).to.include({ ok: false, broken_at: seqOf(0) });
    // Dropping a row changes the next link.
    expect(await verifyKeelLedger({ ...served, turns: served.turns.filter((_, i) => i !== other) })).to.include({ ok: false });

    // Through HubClient.ledger(): a proxy that rewrites the erased row's commitment is reported.
    const proxied = new HubClient({
      base_url: `${url}/hub`, bearer_token: keys.bob,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (!String(input).endsWith('/ledger')) return res;
        const body = (await res.json()) as Ledger;
        body.turns[erasedAt] = { ...body.turns[erasedAt]!, content_hash: '0'.repeat(64) };
        return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    const seen = await proxied.ledger('vault');
    expect(seen.verification.ok, 'the reference chain cannot see it').to.equal(true);
    expect(seen.keel_verification).to.include({ ok: false, broken_at: seqOf(erasedAt) });
  });

  it('signs ledger heads with a key kept owner-only; a forged or replayed signature is rejected', async () => {
    const keyRes = await h.call('GET', '/ledger/key', keys.bob);
    expect(keyRes.status).to.equal(200);
    const key = keyRes.body as LedgerSigningKey;
    expect(key.alg).to.equal('Ed25519');
    const keyFile = path.join(h.kernel.dataDir, 'plugins', 'hub', 'ledger-signing-key.pem');
    if (process.platform !== 'win32') expect(statSync(keyFile).mode & 0o777).to.equal(0o600);
    expect(JSON.stringify(keyRes.body)).not.to.contain('PRIVATE');

    const served = await ledger();
    expect(served.signature).to.include({ alg: 'Ed25519', key_id: key.key_id });
    expect(await verifyHeadSignature(served, key)).to.equal('valid');

    const sig = served.signature!;
    const flipped = Buffer.from(sig.sig, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(await verifyHeadSignature({ ...served, signature: { ...sig, sig: flipped.toString('base64url') } }, key)).to.equal('invalid');
    expect(await verifyHeadSignature({ ...served, signature: { ...sig, signed_at: '2020-01-01T00:00:00.000Z' } }, key)).to.equal('invalid');
    expect(await verifyHeadSignature({ ...served, head: 'a'.repeat(64) }, key)).to.equal('invalid');
    expect(await verifyHeadSignature({ ...served, keel_head: 'b'.repeat(64) }, key)).to.equal('invalid');
    expect(await verifyHeadSignature({ ...served, count: served.count - 1 }, key)).to.equal('invalid');
    expect(await verifyHeadSignature({ ...served, signature: undefined }, key)).to.equal('missing');

    // A signature made by another key (a forger who does not hold the hub's) is rejected.
    const { generateKeyPairSync, sign } = await import('node:crypto');
    const { headStatement } = await import('@keel/hub-client');
    const forger = generateKeyPairSync('ed25519');
    const forged = sign(null, Buffer.from(headStatement(served, sig.signed_at)), forger.privateKey).toString('base64url');
    expect(await verifyHeadSignature({ ...served, signature: { ...sig, sig: forged } }, key)).to.equal('invalid');

    // The hub-client fetches the key and reports a forged signature served by a tampering proxy.
    const proxied = new HubClient({
      base_url: `${url}/hub`, bearer_token: keys.bob,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (!String(input).endsWith('/ledger')) return res;
        const body = (await res.json()) as Ledger;
        return new Response(JSON.stringify({ ...body, signature: { ...body.signature!, sig: forged } }), { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    expect((await proxied.ledger('vault')).head_signature).to.equal('invalid');
  });

  it('keeps its key across restarts and restores owner-only permissions on it', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'keel-ledger-key-'));
    const keyOf = async (): Promise<LedgerSigningKey> => {
      const kernel = await createTestKernel({ plugins: [{ plugin: hubPlugin, config: {} }], dataDir });
      try {
        const res = await kernel.inject({ method: 'GET', url: '/hub/ledger/key', token: kernel.adminToken, headers: { 'x-hub-client': 'keel-tests/1' } });
        expect(res.statusCode).to.equal(200);
        return JSON.parse(res.body) as LedgerSigningKey;
      } finally {
        await kernel.stop();
      }
    };
    try {
      const first = await keyOf();
      const keyFile = path.join(dataDir, 'plugins', 'hub', 'ledger-signing-key.pem');
      if (process.platform !== 'win32') chmodSync(keyFile, 0o644);
      const second = await keyOf();
      expect(second).to.deep.equal(first);
      if (process.platform !== 'win32') expect(statSync(keyFile).mode & 0o777).to.equal(0o600);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('the search index forgets an erased message (no bucket keeps a prefix of its words)', async () => {
    const { MessageIndex } = await import('../../plugins/hub/dist/search/message-index.js');
    const { LiveBus } = await import('../../plugins/hub/dist/live/live-bus.js');
    const live = new LiveBus();
    const db = { messages: { getRange: () => [] } } as unknown as ConstructorParameters<typeof MessageIndex>[0];
    const index = new MessageIndex(db, live);
    expect(index.candidates('qua')).to.deep.equal([]); // builds and subscribes
    const row = { id: 'm1', channel: 'vault', seq: 7, kind: 'message', title: '', body: 'quagga quokka', retracted_at: null } as unknown as Parameters<typeof live.publish>[0];
    live.publish(row);
    expect(index.candidates('quo')).to.deep.equal([{ channel: 'vault', seq: 7 }]);
    live.publish({ ...row, retracted_at: 1 });
    expect(index.candidates('quo'), 'retraction alone keeps the entry (re-checked on read)').to.have.length(1);
    live.publish({ ...row, retracted_at: 1, erased_at: 2, body: '' });
    expect(index.candidates('quo')).to.deep.equal([]);
    expect(index.candidates('q')).to.deep.equal([]);
  });

  it('Keel verification: leading legacy rows are fine, a legacy row after a Keel link breaks the chain', async () => {
    const served = await ledger();
    const asLegacy = (t: LedgerTurn): LedgerTurn => ({ ...t, keel_hash: null, content_hash: null, content_salt: null });
    // Rows before Keel's chain: the first Keel row links to "" (as after a legacy row).
    const { keelHash, contentHash } = await import('@keel/hub-client');
    const first = served.turns[1]!;
    const relinked = { ...first, keel_hash: await keelHash('', first, await contentHash(first, first.content_salt!), served.channel) };
    const tail = [relinked];
    let prev = relinked.keel_hash;
    for (const t of served.turns.slice(2)) {
      const content = t.retracted ? t.content_hash! : await contentHash(t, t.content_salt!);
      const link = await keelHash(prev, t, content, served.channel);
      tail.push({ ...t, keel_hash: link });
      prev = link;
    }
    expect(await verifyKeelLedger({ ...served, keel_head: prev, turns: [asLegacy(served.turns[0]!), ...tail] })).to.include({ ok: true, legacy: 1 });
    expect(await verifyKeelLedger({ ...served, turns: [...served.turns.slice(0, 2), asLegacy(served.turns[2]!), ...served.turns.slice(3)] })).to.include({ ok: false, broken_at: served.turns[2]!.seq });
  });
});
