import { createServer, type Server } from 'node:http';
import { expect } from 'chai';
import OpenAI from 'openai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';

/**
 * A scripted OpenAI-compatible upstream (a fake is fine inside a test): each model names a list of
 * raw body pieces, written one by one with a pause between them, so events arrive split across
 * reads the way a real network delivers them.
 */
class ScriptedSseUpstream {
  private server: Server | undefined;
  private readonly scripts = new Map<string, string[]>();
  url = '';

  script(model: string, pieces: string[]): void {
    this.scripts.set(model, pieces);
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', async () => {
        const { model } = JSON.parse(body || '{}') as { model?: string };
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const piece of this.scripts.get(String(model)) ?? []) {
          res.write(piece);
          await new Promise((r) => setTimeout(r, 5));
        }
        res.end();
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/v1`;
  }

  stop(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

const chunk = (content: string) => JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });

describe('remote endpoints: their SSE streams are parsed by the standard (eventsource-parser), relayed through /v1', function () {
  this.timeout(60_000);
  const upstream = new ScriptedSseUpstream();
  let kernel: TestKernel;
  let client: OpenAI;

  before(async () => {
    await upstream.start();
    kernel = await createTestKernel({
      plugins: [{ plugin: inferencePlugin, config: { bundledModels: false, endpoints: [{ name: 'up', baseUrl: upstream.url, models: ['crlf', 'cr', 'multiline', 'after-done', 'no-done', 'error', 'not-json', 'huge'], maxEventChars: 4096 }] } }],
    });
    const { url } = await kernel.listen();
    client = new OpenAI({ baseURL: `${url}/v1`, apiKey: kernel.adminToken });
  });
  after(async () => {
    await kernel?.stop();
    await upstream.stop();
  });

  /** The streamed answer of `up/<model>` as our /v1 relays it: its text, or the error the client raised. */
  async function relay(model: string): Promise<{ text: string; error: string | null }> {
    let text = '';
    try {
      const stream = await client.chat.completions.create({ model: `up/${model}`, messages: [{ role: 'user', content: 'hi' }], stream: true });
      for await (const part of stream) text += part.choices[0]?.delta?.content ?? '';
      return { text, error: null };
    } catch (err) {
      return { text, error: (err as Error).message };
    }
  }

  it('reads CRLF line ends, comments, id/event/retry fields and events split mid-line', async () => {
    upstream.script('crlf', [': keep-alive\r\n\r\n', `id: 1\r\nevent: message\r\nretry: 100\r\ndata: ${chunk('Hel')}\r`, '\n\r\n', `data: ${chunk('lo')}\r\n`, '\r\n: done soon\r\n\r\ndata: [DONE]\r\n\r\n']);
    expect(await relay('crlf')).to.deep.equal({ text: 'Hello', error: null });
  });

  it('reads bare CR line ends (the old line reader saw nothing)', async () => {
    upstream.script('cr', [`data: ${chunk('one ')}\r\r`, `data: ${chunk('two')}\r\rdata: [DONE]\r\r`]);
    expect(await relay('cr')).to.deep.equal({ text: 'one two', error: null });
  });

  it('joins multi-line data with a newline before parsing the JSON', async () => {
    upstream.script('multiline', ['data: {"choices": [{"index": 0,\n', 'data: "delta": {"content": "joined"}}]}\n\n', 'data: [DONE]\n\n']);
    expect(await relay('multiline')).to.deep.equal({ text: 'joined', error: null });
  });

  it('stops at [DONE]: nothing after it is relayed', async () => {
    upstream.script('after-done', [`data: ${chunk('kept')}\n\n`, 'data: [DONE]\n\n', `data: ${chunk(' IGNORED')}\n\n`]);
    expect(await relay('after-done')).to.deep.equal({ text: 'kept', error: null });
  });

  it('keeps a last event the upstream did not close with a blank line, and ends without [DONE]', async () => {
    upstream.script('no-done', [`data: ${chunk('a')}\n\n`, `data: ${chunk('b')}`]);
    expect(await relay('no-done')).to.deep.equal({ text: 'ab', error: null });
  });

  it('relays an error sent mid-stream as an error chunk naming the endpoint, after the text so far', async () => {
    upstream.script('error', [`data: ${chunk('partial')}\n\n`, 'data: {"error": {"message": "the model is overloaded"}}\n\n', `data: ${chunk(' never')}\n\n`]);
    const out = await relay('error');
    expect(out.text).to.equal('partial');
    expect(out.error).to.contain("The endpoint 'up' failed mid-stream: the model is overloaded");
  });

  it('answers a chunk that is not JSON with an error naming the endpoint, not an internal error', async () => {
    upstream.script('not-json', [`data: ${chunk('x')}\n\n`, 'data: {"choices": [\n\n']);
    const out = await relay('not-json');
    expect(out.text).to.equal('x');
    expect(out.error).to.contain("The endpoint 'up' failed mid-stream: it sent a chunk that is not JSON");
  });

  it('cuts an event larger than endpoints[].maxEventChars instead of buffering it', async () => {
    upstream.script('huge', [`data: ${chunk('ok')}\n\n`, 'data: ', ...Array.from({ length: 10 }, () => 'x'.repeat(1000))]);
    const out = await relay('huge');
    expect(out.text).to.equal('ok');
    expect(out.error).to.contain('endpoints[].maxEventChars');
  });
});
