/**
 * Issue 9 items 12 and 16: inference input is bounded per request (prompt characters, message
 * count), refused with a 400 in the OpenAI shape naming the limit before any model or stream starts,
 * for `/v1` and for runs' LLM calls; a huge model name is not echoed back whole.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { edges, node } from './helpers/flow-builder.js';
import { gatewayRuns, until } from './helpers/gateway-runs.js';

interface OpenAiError {
  error: { message: string; type: string; code: string | null; param: string | null };
}

describe('inference input limits and model-name echo (HTTP, tiny model)', function () {
  this.timeout(120_000);
  let k: TestKernel;
  const runs = gatewayRuns(() => k);
  before(async () => {
    k = await createTestKernel({
      plugins: [{ plugin: inferencePlugin, config: { inputLimits: { maxPromptChars: 2000, maxMessages: 4 } } }, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin],
    });
  });
  after(() => k?.stop());

  const v1 = (url: string, payload: unknown) => k.inject({ method: 'POST', url: `/v1${url}`, token: k.adminToken, payload });
  const refused = (res: { statusCode: number; json<T>(): T; body: string }, code: string, param: string, limit: RegExp) => {
    expect(res.statusCode, res.body.slice(0, 300)).to.equal(400);
    const { error } = res.json<OpenAiError>();
    expect(error).to.include({ type: 'invalid_request_error', code, param });
    expect(error.message).to.match(limit);
  };

  it('refuses an oversized chat prompt with 400 naming the limit, streamed or not', async () => {
    const big = 'x'.repeat(2001);
    for (const stream of [false, true]) {
      const res = await v1('/chat/completions', { model: 'local/keel-tiny-chat', stream, messages: [{ role: 'user', content: big }] });
      refused(res, 'prompt_too_large', 'messages', /2001 characters\) is over the limit of 2000 characters .*inputLimits\.maxPromptChars/);
    }
    // The total counts, not each message: three parts of 700 are over 2000 together.
    const parts = await v1('/chat/completions', { model: 'local/keel-tiny-chat', messages: [{ role: 'system', content: 'a'.repeat(700) }, { role: 'user', content: [{ type: 'text', text: 'b'.repeat(700) }, { type: 'text', text: 'c'.repeat(700) }] }] });
    refused(parts, 'prompt_too_large', 'messages', /2100 characters/);
  });

  it('refuses too many messages with 400 naming the limit', async () => {
    const messages = Array.from({ length: 5 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: 'hi' }));
    refused(await v1('/chat/completions', { model: 'local/keel-tiny-chat', messages }), 'too_many_messages', 'messages', /5 messages; the limit is 4 .*inputLimits\.maxMessages/);
  });

  it('refuses an oversized or too-long batch prompt on /v1/completions and oversized embedding input', async () => {
    refused(await v1('/completions', { model: 'local/keel-tiny-chat', prompt: 'p'.repeat(2001) }), 'prompt_too_large', 'prompt', /over the limit of 2000 characters/);
    refused(await v1('/completions', { model: 'local/keel-tiny-chat', prompt: ['a', 'b', 'c', 'd', 'e'] }), 'too_many_messages', 'prompt', /5 prompts; the limit is 4/);
    refused(await v1('/embeddings', { model: 'local/keel-tiny-chat', input: ['q'.repeat(1500), 'r'.repeat(600)] }), 'prompt_too_large', 'input', /2100 characters/);
  });

  it('still answers a request within the limits', async () => {
    const res = await v1('/chat/completions', { model: 'local/keel-tiny-chat', max_tokens: 4, temperature: 0, messages: [{ role: 'user', content: 'Hello' }] });
    expect(res.statusCode, res.body).to.equal(200);
  });

  it("fails a run whose LLM call's prompt is over the limit, with a reason naming it", async () => {
    await runs.uploadBundle('bigprompt', {
      id: 'main',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'], data: { pinDefaults: { prompt: 'z'.repeat(3000) } } }),
        node({ id: 'ask', type: 'llm_call', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { temperature: 0 } } }),
        node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
      ],
      edges: edges('start -> ask', 'ask -> end', 'start.prompt -> ask.prompt', 'ask.response -> end.response'),
    });
    const id = await runs.startRun('bigprompt', { provider: 'local', model: 'keel-tiny-chat' });
    const run = await until(() => runs.getRun(id), (r) => ['completed', 'failed', 'cancelled'].includes(r.status), 90_000);
    expect(run.status).to.equal('failed');
    expect(run.error).to.match(/inputLimits\.maxPromptChars/);
  });

  it('does not echo a 1 MB model name back whole', async () => {
    const name = `m${'o'.repeat(1024 * 1024)}del`;
    const chat = await v1('/chat/completions', { model: name, messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.statusCode).to.equal(404);
    expect(chat.body.length).to.be.below(2000);
    expect(chat.json<OpenAiError>().error.message).to.match(/^The model 'moooo.*… \(1048580 characters\)' does not exist\.$/);
    const get = await k.inject({ method: 'GET', url: `/v1/models/${'n'.repeat(5000)}`, token: k.adminToken });
    expect(get.statusCode).to.equal(404);
    expect(get.body.length).to.be.below(2000);
    const gw = await k.inject({ method: 'GET', url: `/api/gateway/discovery/providers/${'p'.repeat(5000)}/models`, token: k.adminToken });
    expect(gw.body.length).to.be.below(2000);
  });
});
