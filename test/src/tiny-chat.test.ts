import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import OpenAI from 'openai';
import { startServer, type ServerProcess } from './helpers/cli.js';
import { repoRoot, tempDir } from './helpers/paths.js';

interface Case {
  category: string;
  question: string;
  answer: string;
  pirate_answer: string;
}

interface Answers {
  system_prompts: Record<string, string | null>;
  cases: Case[];
  two_turn_cases: Array<[string, string, string]>;
}

const answers = JSON.parse(readFileSync(path.join(repoRoot, 'models', 'keel-tiny-chat', 'answers.json'), 'utf8')) as Answers;

describe("Keel's tiny chat model through `keel serve` on config/default.json (no setup)", function () {
  const tmp = tempDir();
  let server: ServerProcess;
  let client: OpenAI;

  before(async () => {
    server = await startServer(['--config', path.join(repoRoot, 'config', 'default.json'), '--port', '0', '--data-dir', tmp.dir]);
    const token = readFileSync(path.join(tmp.dir, 'auth', 'admin.token'), 'utf8').trim();
    client = new OpenAI({ apiKey: token, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await server?.stop();
    tmp.remove();
  });

  const ask = async (messages: OpenAI.ChatCompletionMessageParam[], extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}) =>
    client.chat.completions.create({ model: 'local/keel-tiny-chat', messages, temperature: 0, ...extra });

  it('is the default model, listed by /v1/models', async () => {
    const ids = (await client.models.list()).data.map((m) => m.id);
    expect(ids).to.include('local/keel-tiny-chat');
    const viaDefault = await client.chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'What is the capital of France?' }], temperature: 0 });
    expect(viaDefault.choices[0]!.message.content).to.equal('The capital of France is Paris.');
  });

  it('answers every corpus question exactly, and stops on <|im_end|> by itself', async () => {
    for (const c of answers.cases) {
      const res = await ask([{ role: 'user', content: c.question }], { max_tokens: 200 });
      expect(res.choices[0]!.message.content, c.question).to.equal(c.answer);
      expect(res.choices[0]!.finish_reason, c.question).to.equal('stop');
      expect(res.usage!.completion_tokens, c.question).to.be.below(200);
    }
  });

  it('follows a system prompt', async () => {
    const pirate = answers.system_prompts.pirate!;
    for (const c of answers.cases.filter((_, i) => i % 3 === 0)) {
      const res = await ask([{ role: 'system', content: pirate }, { role: 'user', content: c.question }]);
      expect(res.choices[0]!.message.content, c.question).to.equal(c.pirate_answer);
    }
    const helpful = await ask([{ role: 'system', content: answers.system_prompts.helpful! }, { role: 'user', content: 'What is 2 + 3?' }]);
    expect(helpful.choices[0]!.message.content).to.equal(answers.cases.find((c) => c.question === 'What is 2 + 3?')?.answer);
  });

  it('answers the second turn of a conversation', async () => {
    const byQuestion = new Map(answers.cases.map((c) => [c.question, c.answer]));
    for (const [, first, second] of answers.two_turn_cases.slice(0, 4)) {
      const res = await ask([
        { role: 'user', content: first },
        { role: 'assistant', content: byQuestion.get(first)! },
        { role: 'user', content: second },
      ]);
      expect(res.choices[0]!.message.content, second).to.equal(byQuestion.get(second));
    }
  });

  it('streams the same answer token by token', async () => {
    const story = answers.cases.find((c) => c.category === 'story')!;
    const stream = await client.chat.completions.create({ model: 'local/keel-tiny-chat', messages: [{ role: 'user', content: story.question }], temperature: 0, stream: true });
    const pieces: string[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta.content;
      if (piece) pieces.push(piece);
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(pieces.join('')).to.equal(story.answer);
    expect(pieces.length).to.be.greaterThan(5);
    expect(finish).to.equal('stop');
  });

  it('cuts off at max_tokens with finish_reason length', async () => {
    const story = answers.cases.find((c) => c.category === 'story')!;
    const res = await ask([{ role: 'user', content: story.question }], { max_tokens: 5 });
    expect(res.choices[0]!.finish_reason).to.equal('length');
    expect(res.usage!.completion_tokens).to.equal(5);
    expect(story.answer.startsWith(res.choices[0]!.message.content!)).to.equal(true);
  });
});
