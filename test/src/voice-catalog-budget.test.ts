/**
 * The discovery budget and TTL (seed §8 "Speech discovery", reference B.9): every remote probe of a
 * listing shares one budget (VOICE_DISCOVERY_TIMEOUT_S, default 5 s), each request's timeout is
 * min(budget, VOICE_REMOTE_TIMEOUT_S), and answers are reused for VOICE_REMOTE_DISCOVERY_TTL_S
 * (300 s; lower, non-numeric and non-finite values give 300). The TTL is aged with the catalog's
 * injectable clock, never by waiting.
 */
import { expect } from 'chai';
import { VoiceCatalog, discoverySettings } from '@keel/voice';

/** The settings a catalog reads from this environment. */
const read = (env: Record<string, string>) => new VoiceCatalog({ env }).discoverySettings();
import { startVoiceRemote, type VoiceRemote } from './helpers/voice-remote.js';
import { until } from './helpers/until.js';

describe('voice catalog: the shared probe budget and the answer TTL', function () {
  this.timeout(120_000);
  let hosted: VoiceRemote;
  let compatible: VoiceRemote;

  beforeEach(async () => {
    hosted = await startVoiceRemote({ apiKey: 'k' });
    compatible = await startVoiceRemote();
  });
  afterEach(async () => {
    await hosted?.close();
    await compatible?.close();
  });

  const settings = () => ({ hostedApiKey: 'k', hostedBaseUrl: hosted.baseUrl, remoteBaseUrl: compatible.baseUrl });

  it('probes all slow remotes at once within one budget: the listing takes about the budget, not a budget per probe', async () => {
    hosted.faults = { hang: true };
    compatible.faults = { hang: true };
    const budgetS = 2;
    const catalog = new VoiceCatalog({ settings: settings(), env: { VOICE_DISCOVERY_TIMEOUT_S: String(budgetS) } });
    const started = Date.now();
    const payload = await catalog.voiceCatalog();
    const elapsed = (Date.now() - started) / 1000;
    // Four probes (models and voices of two remotes): one after the other they would take 4 budgets.
    expect(hosted.count('/models') + hosted.count('/audio/voices') + compatible.count('/models') + compatible.count('/audio/voices')).to.equal(4);
    expect(elapsed, `the listing took ${elapsed} s`).to.be.below(3 * budgetS);
    expect(elapsed).to.be.at.least(budgetS * 0.9);
    expect(payload.unreachable_tts_providers).to.deep.equal(['compatible', 'hosted']);
    expect(payload.tts_catalog_by_provider.hosted!.unreachable_reason).to.match(/no answer within|discovery budget/);
    // The hosted provider still lists what it knows without asking; the compatible one knows nothing.
    expect(payload.tts_catalog_by_provider.hosted!.models).to.include('gpt-4o-mini-tts');
    expect(payload.tts_catalog_by_provider.compatible!.models).to.deep.equal([]);
    // The timed-out requests were given up by the client, not left open.
    await until(() => [...hosted.seen, ...compatible.seen].every((r) => r.abandoned), { what: 'every probe to be abandoned by the client' });
  });

  it('gives each request min(budget, VOICE_REMOTE_TIMEOUT_S): a short remote timeout ends probes long before the budget', async () => {
    compatible.faults = { hang: true };
    const catalog = new VoiceCatalog({ settings: settings(), env: { VOICE_DISCOVERY_TIMEOUT_S: '60', VOICE_REMOTE_TIMEOUT_S: '1' } });
    expect(catalog.discoverySettings()).to.deep.equal({ budgetS: 60, remoteTimeoutS: 1, ttlS: 300 });
    const started = Date.now();
    const payload = await catalog.voiceCatalog('compatible');
    expect((Date.now() - started) / 1000).to.be.below(30);
    expect(payload.unavailable_reason).to.match(/no answer within 1\.0 s/);
    // The manager's explicit remote_timeout_s wins over the environment.
    const explicit = new VoiceCatalog({ settings: { ...settings(), remoteTimeoutS: 2 }, env: { VOICE_REMOTE_TIMEOUT_S: '9' } });
    expect(explicit.discoverySettings().remoteTimeoutS).to.equal(2);
  });

  it('reuses remote answers for 300 s, then asks again', async () => {
    let now = 1_000_000;
    const catalog = new VoiceCatalog({ settings: settings(), env: {}, clock: () => now });
    await catalog.voiceCatalog();
    expect(compatible.count('/models')).to.equal(1);
    expect(compatible.count('/audio/voices')).to.equal(1);
    await catalog.voiceCatalog();
    now += 299_000;
    await catalog.voiceCatalog('compatible');
    expect(compatible.count('/models')).to.equal(1);
    now += 2_000;
    await catalog.voiceCatalog();
    expect(compatible.count('/models')).to.equal(2);
    expect(compatible.count('/audio/voices')).to.equal(2);
    expect(hosted.count('/models')).to.equal(2);
    // refresh() forgets the answers at once.
    catalog.refresh();
    await catalog.voiceCatalog();
    expect(compatible.count('/models')).to.equal(3);
  });

  it('clamps the TTL: lower, non-numeric and non-finite values give 300; a larger value is kept', async () => {
    for (const raw of ['10', '0', '-5', 'abc', '', 'NaN', 'Infinity', '-Infinity', '299.9']) expect(read({ VOICE_REMOTE_DISCOVERY_TTL_S: raw }).ttlS, raw).to.equal(300);
    expect(read({ VOICE_REMOTE_DISCOVERY_TTL_S: '600' }).ttlS).to.equal(600);
    expect(read({}).ttlS).to.equal(300);

    for (const raw of ['10', 'abc', 'Infinity']) {
      let now = 0;
      const catalog = new VoiceCatalog({ settings: settings(), env: { VOICE_REMOTE_DISCOVERY_TTL_S: raw }, clock: () => now });
      const before = compatible.count('/models');
      await catalog.voiceCatalog('compatible');
      now += 11_000;
      await catalog.voiceCatalog('compatible');
      expect(compatible.count('/models'), `TTL ${raw} after 11 s`).to.equal(before + 1);
      now += 290_000;
      await catalog.voiceCatalog('compatible');
      expect(compatible.count('/models'), `TTL ${raw} after 301 s`).to.equal(before + 2);
    }

    let now = 0;
    const long = new VoiceCatalog({ settings: settings(), env: { VOICE_REMOTE_DISCOVERY_TTL_S: '600' }, clock: () => now });
    const before = compatible.count('/models');
    await long.voiceCatalog('compatible');
    now += 301_000;
    await long.voiceCatalog('compatible');
    expect(compatible.count('/models')).to.equal(before + 1);
    now += 300_000;
    await long.voiceCatalog('compatible');
    expect(compatible.count('/models')).to.equal(before + 2);
  });

  it('does not keep failures: an unreachable remote is asked again at the next listing and then listed', async () => {
    compatible.faults = { failStatus: 503 };
    const catalog = new VoiceCatalog({ settings: settings(), env: {} });
    expect((await catalog.voiceCatalog('compatible')).unreachable_tts_providers).to.deep.equal(['compatible']);
    compatible.faults = {};
    const second = await catalog.voiceCatalog('compatible');
    expect(second.unreachable_tts_providers).to.deep.equal([]);
    expect(second.tts_models).to.deep.equal(['remote-tts-1']);
  });

  it('shares one probe between listings that run at the same time', async () => {
    compatible.faults = { delayMs: 300 };
    const catalog = new VoiceCatalog({ settings: settings(), env: {} });
    await Promise.all([catalog.voiceCatalog('compatible'), catalog.voiceCatalog('compatible'), catalog.voiceCatalog()]);
    expect(compatible.count('/models')).to.equal(1);
  });

  it('reads the budget and the remote timeout like the reference: a value ≤ 0 or not a number is ignored', () => {
    for (const raw of ['0', '-1', 'abc', '', 'Infinity']) expect(read({ VOICE_DISCOVERY_TIMEOUT_S: raw }).budgetS, raw).to.equal(5);
    expect(read({ VOICE_DISCOVERY_TIMEOUT_S: '2.5' }).budgetS).to.equal(2.5);
    for (const raw of ['0', '-1', 'abc']) expect(read({ VOICE_REMOTE_TIMEOUT_S: raw }).remoteTimeoutS, raw).to.equal(60);
    expect(discoverySettings({})).to.deep.equal({ budgetS: 5, remoteTimeoutS: 60, ttlS: 300 });
  });
});
