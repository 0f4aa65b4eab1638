/**
 * Attack (issue 15): what one account may store without bound. Archived automations are kept for good
 * (there is no delete) and not counted by `limits.maxAutomationsPerAccount`, so create → archive in a
 * loop stored automations forever; every PATCH kept a new revision (each up to
 * `limits.maxInputDataBytes` of input_data) with no bound. Both are now capped by settings.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { automationsPlugin } from '@keel/plugin-automations';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { echoFlow } from './helpers/automations-engine.js';

const MANUAL = { source_id: 'manual', source_version: 1, config: {} };

describe('attack15: what one account stores is bounded', function () {
  this.timeout(180_000);
  let k: TestKernel;
  let mal = '';

  before(async () => {
    const limits = { maxAutomationsPerAccount: 2, maxArchivedAutomationsPerAccount: 3, maxRevisionsPerAutomation: 4 };
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: automationsPlugin, config: { limits, scheduler: { pollMs: 50 } } }] });
    mal = await createAccount(k, 'mal');
    await uploadBundleAs(k, mal, 'echo', echoFlow);
  });
  after(async () => k?.stop());

  const create = (requestId: string) =>
    k.inject({ method: 'POST', url: '/api/gateway/automations', token: mal, payload: { request_id: requestId, target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'x'.repeat(1000) } }, trigger: MANUAL } });
  const command = (id: string, type: string, commandId = crypto.randomUUID()) => k.inject({ method: 'POST', url: `/api/gateway/automations/${id}/commands`, token: mal, payload: { command_id: commandId, type } });

  it('create → archive in a loop stops at limits.maxAutomationsPerAccount + maxArchivedAutomationsPerAccount (archived ones included): 409 invalid_state', async () => {
    let created = 0;
    let refused: { statusCode: number; body: string; json<T>(): T } | null = null;
    for (let i = 0; i < 20 && !refused; i++) {
      const res = await create(`loop-${i}`);
      if (res.statusCode !== 200) {
        refused = res;
        break;
      }
      created++;
      const archived = await command(res.json<{ automation_id: string }>().automation_id, 'automation.archive');
      expect(archived.statusCode, archived.body).to.equal(200);
    }
    expect(created).to.equal(5);
    expect(refused?.statusCode, refused?.body).to.equal(409);
    const detail = refused!.json<{ detail: { reason_code: string; message: string } }>().detail;
    expect(detail.reason_code).to.equal('invalid_state');
    expect(detail.message).to.contain('limits.maxArchivedAutomationsPerAccount');
    // A repeat of a stored request still answers its automation.
    expect((await create('loop-0')).statusCode).to.equal(200);
    const list = await k.inject({ url: '/api/gateway/automations?archived_only=true', token: mal });
    expect(list.json<{ archived_automations: number }>().archived_automations).to.equal(5);
  });

  it('PATCH in a loop stops at limits.maxRevisionsPerAutomation: 409 invalid_state, every kept revision still listed', async () => {
    const other = await createAccount(k, 'mal2');
    await uploadBundleAs(k, other, 'echo', echoFlow);
    const made = await k.inject({ method: 'POST', url: '/api/gateway/automations', token: other, payload: { request_id: 'rev', target: { bundle_ref: 'echo', flow_id: 'echo' }, trigger: MANUAL } });
    expect(made.statusCode, made.body).to.equal(200);
    const id = made.json<{ automation_id: string }>().automation_id;
    const patch = (i: number) => k.inject({ method: 'PATCH', url: `/api/gateway/automations/${id}`, token: other, payload: { command_id: `p-${i}`, changes: { title: `Title ${i}` } } });
    let accepted = 0;
    let last: { statusCode: number; body: string; json<T>(): T } | null = null;
    for (let i = 0; i < 20; i++) {
      last = await patch(i);
      if (last.statusCode !== 200) break;
      accepted++;
    }
    expect(accepted).to.equal(3);
    expect(last?.statusCode, last?.body).to.equal(409);
    expect(last!.json<{ detail: { reason_code: string; message: string } }>().detail.message).to.contain('limits.maxRevisionsPerAutomation');
    // A retry of a decided revise is still its duplicate.
    const again = await patch(0);
    expect(again.statusCode, again.body).to.equal(200);
    expect(again.json<{ duplicate: boolean }>().duplicate).to.equal(true);
    const revisions = await k.inject({ url: `/api/gateway/automations/${id}/revisions`, token: other });
    expect(revisions.json<{ items: unknown[]; active_revision: number }>()).to.include({ active_revision: 4 });
    expect(revisions.json<{ items: unknown[] }>().items).to.have.length(4);
    // Other commands still apply.
    expect((await k.inject({ method: 'POST', url: `/api/gateway/automations/${id}/commands`, token: other, payload: { command_id: 'pause', type: 'automation.pause' } })).statusCode).to.equal(200);
  });
});
