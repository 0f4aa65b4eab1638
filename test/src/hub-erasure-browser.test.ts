/**
 * The hub client's ledger checks in Chromium: the served client modules verify a ledger with an
 * erased row (both chains) and the head signature with the browser's own WebCrypto Ed25519, and
 * reject a forged signature.
 */
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import type { HubHarness } from './helpers/hub.js';
import { launchChromium, openHarness, skipWithoutChromium, startServedHub } from './helpers/team-page.js';

describe('hub client in Chromium: erased rows and signed heads', function () {
  this.timeout(180_000);
  let hub: HubHarness;
  let base: string;
  let browser: Browser;
  let page: Page;
  let annKey: string;
  let erasedSeq: number;
  const problems: string[] = [];

  before(async function () {
    skipWithoutChromium(this);
    ({ hub, base } = await startServedHub());
    const keys = await hub.seats(['olga', 'ann'] as const, ['olga']);
    annKey = keys.ann;
    await hub.room('attic', keys.ann, [keys.olga]);
    const post = async (body: string) => (await hub.call('POST', '/channels/attic/messages', keys.ann, { body })).body as { id: string };
    await post('kept');
    const gone = await post('to be erased');
    await post('after');
    expect((await hub.call('POST', `/channels/attic/messages/${gone.id}/retract`, keys.ann, {})).status).to.equal(200);
    const erased = await hub.call('POST', `/channels/attic/messages/${gone.id}/erase`, keys.olga, {});
    expect(erased.status).to.equal(200);
    erasedSeq = erased.body.seq;
    browser = await launchChromium();
    page = await openHarness(browser, base, (p) => p.on('pageerror', (err) => problems.push(err.message)));
  });
  after(async () => {
    await browser?.close();
    await hub?.stop();
  });

  it('verifies the whole history, reports the erased row, and checks the signature with WebCrypto Ed25519', async () => {
    const verdict = await page.evaluate(async (key) => {
      const client = await import('/hub/ui/client/index.js' as string);
      const hubClient = new client.HubClient({ base_url: '/hub', bearer_token: key });
      const ledger = await hubClient.ledger('attic');
      const forged = { ...ledger, signature: { ...ledger.signature, sig: ledger.signature.sig.replace(/^./, (c: string) => (c === 'A' ? 'B' : 'A')) } };
      return {
        ok: ledger.verification.ok,
        keel: ledger.keel_verification,
        signature: ledger.head_signature,
        forged: await client.verifyHeadSignature(forged, await hubClient.ledger_key()),
      };
    }, annKey);
    expect(problems).to.deep.equal([]);
    expect(verdict.ok).to.equal(true);
    expect(verdict.keel).to.include({ ok: true }).and.to.have.deep.property('erased', [erasedSeq]);
    expect(verdict.signature).to.equal('valid', 'Chromium has Ed25519 in WebCrypto (since 137)');
    expect(verdict.forged).to.equal('invalid');
  });
});
