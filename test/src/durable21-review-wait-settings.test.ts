/**
 * Review of issue 21's start `wait` settings: `startWait.maxTimeoutS` past what a Node timer holds
 * (2^31 - 1 ms) is refused at boot naming the setting. Before, the kernel booted and every wait's
 * timer fired at once (Node clamps an overlong delay to 1 ms), so each start answered `reached: false`.
 */
import { expect } from 'chai';
import { createTestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';

describe('durable21 review: startWait settings', function () {
  this.timeout(120_000);

  it('a startWait.maxTimeoutS longer than a timer can wait is refused at boot, naming it', async () => {
    let error: Error | null = null;
    try {
      const k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { startWait: { maxTimeoutS: 3_000_000 } } }] });
      await k.stop();
    } catch (err) {
      error = err as Error;
    }
    expect(error, 'the kernel booted').to.not.equal(null);
    expect(error!.message).to.contain('maxTimeoutS');
  });
});
