// Step 3: tokenize every training conversation exactly as node-llama-cpp will at inference time.
//
// usage: node tools/tiny-chat/tokenize.mjs [model.gguf] [corpus.json] [out.json]
//   defaults: build/vocab.gguf (random weights, real vocabulary), build/corpus.json, build/tokens.json
//
// For turn k of a conversation the prompt is the ChatML wrapper's context text for the history
// [system?, user1, model1, ..., user_k, model(empty)] -- which is what LlamaChatSession/LlamaChat
// evaluates before generating -- tokenized with LlamaText.tokenize (special tokens only where the
// wrapper marks them). The target is model.tokenize(answer) followed by <|im_end|>. The loss mask
// covers the answer tokens and the closing <|im_end|> of every turn.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getLlama, LlamaChatSession, ChatMLChatWrapper } from 'node-llama-cpp';

const here = path.dirname(fileURLToPath(import.meta.url));
const modelPath = path.resolve(process.argv[2] ?? path.join(here, 'build', 'vocab.gguf'));
const corpusPath = path.resolve(process.argv[3] ?? path.join(here, 'build', 'corpus.json'));
const outPath = path.resolve(process.argv[4] ?? path.join(here, 'build', 'tokens.json'));

const corpus = JSON.parse(fs.readFileSync(corpusPath, 'utf8'));
const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' });
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ contextSize: 512, threads: 1 });
// Use the wrapper node-llama-cpp resolves from the GGUF's chat template (must be ChatML).
const session = new LlamaChatSession({ contextSequence: context.getSequence() });
const wrapper = session.chatWrapper;
if (!(wrapper instanceof ChatMLChatWrapper)) throw new Error(`expected ChatMLChatWrapper, got ${wrapper.constructor.name}`);

const imEnd = model.tokenize('<|im_end|>', true);
if (imEnd.length !== 1) throw new Error('<|im_end|> is not a single special token');
const IM_END = imEnd[0];

function history(system, turns, k) {
  const h = system == null ? [] : [{ type: 'system', text: system }];
  for (let i = 0; i < k; i++) {
    h.push({ type: 'user', text: turns[i][0] });
    h.push({ type: 'model', response: i < k - 1 ? [turns[i][1]] : [] });
  }
  return h;
}

function sameStart(a, b) {
  return a.length <= b.length && a.every((t, i) => t === b[i]);
}

const sequences = [];
let maxLen = 0;
let maskedTokens = 0;
for (const conv of corpus.conversations) {
  let tokens = [];
  let mask = [];
  const turnStarts = [];
  for (let k = 1; k <= conv.turns.length; k++) {
    const { contextText } = wrapper.generateContextState({ chatHistory: history(conv.system, conv.turns, k) });
    const prompt = contextText.tokenize(model.tokenizer);
    if (!sameStart(tokens, prompt)) throw new Error(`${conv.id}: turn ${k} prompt does not extend turn ${k - 1}`);
    mask = mask.concat(new Array(prompt.length - tokens.length).fill(0));
    tokens = Array.from(prompt);
    turnStarts.push(tokens.length);
    const answer = Array.from(model.tokenize(conv.turns[k - 1][1], false));
    if (model.detokenize(answer) !== conv.turns[k - 1][1]) throw new Error(`${conv.id}: answer does not round-trip`);
    tokens = tokens.concat(answer, [IM_END]);
    mask = mask.concat(new Array(answer.length + 1).fill(1));
  }
  maxLen = Math.max(maxLen, tokens.length);
  maskedTokens += mask.reduce((a, b) => a + b, 0);
  sequences.push({ id: conv.id, tokens, mask, answer_starts: turnStarts });
}
if (maxLen > 512) throw new Error(`sequence too long: ${maxLen}`);

const out = {
  model: path.basename(modelPath),
  bos: model.tokens.bos,
  eos: model.tokens.eos,
  im_end: IM_END,
  chat_wrapper: wrapper.wrapperName,
  sequences,
};
fs.writeFileSync(outPath, JSON.stringify(out) + '\n');
const total = sequences.reduce((a, s) => a + s.tokens.length, 0);
console.log(`tokenized ${sequences.length} conversations with ${wrapper.wrapperName}: ${total} tokens ` +
  `(${maskedTokens} in the loss), longest ${maxLen}; bos=${model.tokens.bos} eos=${model.tokens.eos} im_end=${IM_END} -> ${outPath}`);
session.dispose({ disposeSequence: false });
await context.dispose();
await model.dispose();
