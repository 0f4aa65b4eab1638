/**
 * Attack (issue 15): what an occurrence's failure tells its owner. A launch that failed inside the
 * server (here: the occurrence's session folder cannot be made) stored the exception's message on
 * the occurrence row and its attention item — with the absolute path of the data folder, which a
 * non-admin is never told. Only a refusal's sentence (a 4xx) is shown now; the rest goes to the log.
 */
import { createHash } from 'node:crypto';
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { uuid5 } from '@keel/plugin-automations';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, echoFlow, TestClock } from './helpers/automations-engine.js';

describe('attack15: an occurrence that cannot start for a server fault', function () {
  this.timeout(240_000);
  const clock = new TestClock();
  let k: TestKernel;

  before(async () => {
    k = await automationsKernel(clock);
  });
  after(async () => k?.stop());

  it("fails with a sentence that names no server path (the fault is in the server's log)", async () => {
    const token = await createAccount(k, 'ann');
    await uploadBundleAs(k, token, 'echo', echoFlow);
    const api = automationsApi(() => k, token);
    const id = await api.create({ request_id: 'folderless', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'hi' } }, trigger: { source_id: 'manual', source_version: 1, config: {} }, policy: { retry: { max_attempts: 1 } } });
    // A file where the occurrence's session folder will be made (as a full disk or a broken mount would make mkdir fail).
    const runId = uuid5(id, 'manual:go');
    const digest = createHash('sha256').update(`ann\u0000occurrence-session:${runId}`).digest('hex').slice(0, 32);
    mkdirSync(path.join(k.dataDir, 'workspaces'), { recursive: true });
    writeFileSync(path.join(k.dataDir, 'workspaces', `session-${digest}`), 'not a folder');
    const run = await api.call('POST', `/automations/${id}/commands`, { command_id: 'go', type: 'automation.run_now' });
    expect(run.statusCode, run.body).to.equal(200);
    const rows = await api.untilOccurrences(id, 'the occurrence to fail', (r) => r[0]?.status === 'failed');
    const message = rows[0]!.failure!.message;
    expect(message).not.to.contain(k.dataDir);
    expect(message).not.to.match(/EEXIST|ENOTDIR|mkdir|\/workspaces\//);
    expect(message).to.match(/server/i);
    const attention = await api.attention(id);
    expect(JSON.stringify(attention)).not.to.contain(k.dataDir);
  });
});
