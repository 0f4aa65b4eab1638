/**
 * `provider_models` (reference runtime-nodes §3.5, §11 "provider_models"): a pure node listing the
 * models of a provider through the inference plugin, filtered, as bare names; run through HTTP.
 */
import { expect } from 'chai';
import { edges, node } from './helpers/flow-builder.js';
import { llmGatewaySuite } from './helpers/llm-gateway.js';
import { until } from './helpers/until.js';

/** start → end, with a provider_models node (these pin defaults, this config) feeding the end. */
function catalogFlow(pins: Record<string, unknown>, config: Record<string, unknown> = {}) {
  return {
    id: 'catalog',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: [] }),
      node({ id: 'models', type: 'provider_models', exec: false, inputs: ['provider', 'capability_route', 'allowed_models'], outputs: ['provider', 'models', 'error'], data: { pinDefaults: pins, providerModelsConfig: config } }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['provider', 'models', 'error'] }),
    ],
    edges: edges('start -> end', 'models.provider -> end.provider', 'models.models -> end.models', 'models.error -> end.error'),
  };
}

describe('provider_models: the models a provider lists, through the inference plugin', function () {
  this.timeout(120_000);
  const { gw } = llmGatewaySuite({ models: ['alpha', 'beta', 'gamma'] });

  it('a blank provider gives {provider: "", models: []}', async () => {
    const { run } = await gw.runFlow(catalogFlow({}));
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(run.output).to.deep.include({ provider: '', models: [] });
  });

  it('a configured endpoint lists its models as bare names; the allow-list keeps names equal to an entry or to provider/name', async () => {
    const all = await gw.runFlow(catalogFlow({ provider: 'fake' }));
    expect(all.run.output).to.deep.include({ provider: 'fake', models: ['alpha', 'beta', 'gamma'] });
    const some = await gw.runFlow(catalogFlow({}, { provider: 'fake', allowedModels: ['fake/alpha', 'gamma', 'delta'] }));
    expect(some.run.output).to.deep.include({ provider: 'fake', models: ['alpha', 'gamma'] });
  });

  it('the local provider lists the bundled chat model; capability route output.text keeps chat models, an unknown route is an error', async () => {
    const local = await gw.runFlow(catalogFlow({ provider: 'local', capability_route: 'output.text' }));
    expect(local.run.output!.models).to.include('keel-tiny-chat');
    const bad = await gw.runFlow(catalogFlow({ provider: 'fake', capability_route: 'output.hologram' }));
    expect(bad.run.output!.models).to.deep.equal([]);
    expect(bad.run.output!.error).to.match(/^Invalid capability_route filter: output\.hologram/);
  });
});

describe('provider_models on a live catalog (an endpoint without a model list)', function () {
  this.timeout(120_000);
  const { endpoint, gw } = llmGatewaySuite({ models: [] }, (e) => {
    e.script('live-one', [{ content: 'x' }]);
    e.script('live-two', [{ content: 'y' }]);
  });

  it('is not fetched at start; the first read starts the listing in the background and later reads see it', async () => {
    // The plugins started (boot returned) and the start listing ran: a live catalog is not part of it.
    await until(() => gw.k.inject({ url: '/api/gateway/runs', token: gw.k.adminToken }).then((r) => r.statusCode), { what: 'the gateway to answer', ok: (code) => code === 200 });
    expect(endpoint.catalogRequests, 'no catalog call before a flow reads it').to.equal(0);
    const seen = await until(async () => (await gw.runFlow(catalogFlow({ provider: 'fake' }))).run.output!.models as string[], { what: 'the live catalog to be listed', ok: (models) => models.length > 0 });
    expect(seen).to.deep.equal(['live-one', 'live-two']);
    expect(endpoint.catalogRequests).to.be.greaterThan(0);
  });
});
