/**
 * `model_residency` (reference runtime-nodes §10): loading, listing and unloading the real local
 * tiny model through the inference plugin's llama engine, from flows run through HTTP; soft
 * failures, `required`, and the no-op unload warning.
 */
import { expect } from 'chai';
import { edges, node } from './helpers/flow-builder.js';
import { llmGatewaySuite, startedOf } from './helpers/llm-gateway.js';
import { TINY_CHAT } from './helpers/shared-models.js';

/** start → model_residency (these pin defaults) → end with its outputs. */
function residencyFlow(pins: Record<string, unknown>) {
  return {
    id: 'residency',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: [] }),
      node({ id: 'res', type: 'model_residency', inputs: ['operation', 'task', 'provider', 'model', 'required'], outputs: ['success', 'affected_models', 'models', 'error', 'warnings'], data: { pinDefaults: pins } }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['success', 'affected_models', 'models', 'error', 'warnings'] }),
    ],
    edges: edges('start -> res', 'res -> end', ...['success', 'affected_models', 'models', 'error', 'warnings'].map((p) => `res.${p} -> end.${p}`)),
  };
}

describe('model_residency: load, list and unload local models through the inference plugin', function () {
  this.timeout(180_000);
  const { gw } = llmGatewaySuite({ models: ['remote'] });

  it('load (warm) the tiny model: a model_residency effect, the model listed loaded; list_loaded shows it; unload (evict) drops it; a second unload is a no-op with a warning', async () => {
    const loaded = await gw.runFlow(residencyFlow({ operation: 'warm', task: 'text_generation', model: TINY_CHAT }), {}, 120_000);
    expect(loaded.run.status, loaded.run.error ?? '').to.equal('completed');
    expect(loaded.run.output).to.deep.include({ success: true, affected_models: [TINY_CHAT] });
    expect(loaded.run.output!.models).to.include(TINY_CHAT);
    const started = startedOf(loaded.ledger, 'model_residency');
    expect(started).to.have.length(1);
    expect(started[0]!.effect!.payload).to.include({ operation: 'warm', task: 'text_generation', model: TINY_CHAT, pin: true, required: false });

    const listed = await gw.runFlow(residencyFlow({}));
    expect(listed.run.output).to.deep.include({ success: true });
    expect(listed.run.output!.models).to.include(TINY_CHAT);

    const unloaded = await gw.runFlow(residencyFlow({ operation: 'evict', model: TINY_CHAT }));
    expect(unloaded.run.output).to.deep.include({ success: true, affected_models: [TINY_CHAT] });
    expect(unloaded.run.output!.models).to.not.include(TINY_CHAT);

    const again = await gw.runFlow(residencyFlow({ operation: 'unload', model: TINY_CHAT }));
    expect(again.run.output).to.deep.include({ success: true, affected_models: [] });
    expect((again.run.output!.warnings as string[])[0]).to.contain('was not loaded');
  });

  it('failures are soft: load without task, or of a remote model, completes the run with success false and the reason', async () => {
    const noTask = await gw.runFlow(residencyFlow({ operation: 'load', model: TINY_CHAT }));
    expect(noTask.run.status).to.equal('completed');
    expect(noTask.run.output).to.deep.include({ success: false, error: 'model_residency load requires task' });
    const remote = await gw.runFlow(residencyFlow({ operation: 'load', task: 'text_generation', provider: 'fake', model: 'remote' }));
    expect(remote.run.status).to.equal('completed');
    expect(remote.run.output!.success).to.equal(false);
    expect(remote.run.output!.error).to.contain("runs on the provider 'fake', whose residency Keel does not control");
  });

  it('required: a failure fails the effect and the run', async () => {
    const { run } = await gw.runFlow(residencyFlow({ operation: 'load', model: TINY_CHAT, required: true }));
    expect(run.status).to.equal('failed');
    expect(run.error).to.contain('model_residency load requires task');
  });
});
