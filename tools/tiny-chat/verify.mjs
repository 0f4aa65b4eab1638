// Step 5: verify the committed GGUF with node-llama-cpp exactly as an application would use it.
//
// usage: node tools/tiny-chat/verify.mjs [model.gguf]
//   default model: models/keel-tiny-chat/keel-tiny-chat.gguf
// Needs only committed files (models/keel-tiny-chat/answers.json, tools/tiny-chat/reference-logits.json);
// if tools/tiny-chat/build/tokens.json exists (after tokenize.mjs) it also checks that the tokens
// node-llama-cpp evaluated are exactly the training tokens.
//
// Checks
//  1. the GGUF's chat template resolves to node-llama-cpp's ChatMLChatWrapper;
//  2. every question, greedy (temperature 0), under each system-prompt variant:
//       none (explicit empty chat history), node-llama-cpp's default system prompt (LlamaChatSession
//       without `systemPrompt`), "You are a helpful assistant.", "You are a pirate." ("Arr! " prefix);
//     the answer must be exact and generation must end on <|im_end|> (stopReason "eogToken");
//  3. a few two-turn conversations (second question after the first answer);
//  4. llama.cpp's next-token logits vs the trainer's (reference-logits.json): max |diff| <= 2e-2 with the
//     default context, <= 1e-4 with an F32 KV cache and no flash attention;
//  5. speed (generated tokens / s).
// Exit code 1 if anything fails.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { getLlama, LlamaChatSession, ChatMLChatWrapper } from 'node-llama-cpp';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const modelPath = path.resolve(process.argv[2] ?? path.join(root, 'models', 'keel-tiny-chat', 'keel-tiny-chat.gguf'));
const answers = JSON.parse(fs.readFileSync(path.join(root, 'models', 'keel-tiny-chat', 'answers.json'), 'utf8'));
const reference = JSON.parse(fs.readFileSync(path.join(here, 'reference-logits.json'), 'utf8'));
const tokensPath = path.join(here, 'build', 'tokens.json');
const training = fs.existsSync(tokensPath) ? JSON.parse(fs.readFileSync(tokensPath, 'utf8')) : null;
const corpusPath = path.join(here, 'build', 'corpus.json');
const corpus = fs.existsSync(corpusPath) ? JSON.parse(fs.readFileSync(corpusPath, 'utf8')) : null;
const SEED = 42;

const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' });
const t0 = performance.now();
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ contextSize: 512, threads: 1, seed: SEED });
const sequence = context.getSequence();
const loadMs = performance.now() - t0;

let failures = 0;
const fail = (msg) => { failures++; console.log(`FAIL ${msg}`); };

// 1. chat wrapper resolution --------------------------------------------------------------------
const probe = new LlamaChatSession({ contextSequence: sequence });
const wrapperName = probe.chatWrapper.constructor.name;
if (!(probe.chatWrapper instanceof ChatMLChatWrapper)) fail(`chat wrapper is ${wrapperName}, expected ChatMLChatWrapper`);
const defaultHistory = probe.getChatHistory();
probe.dispose({ disposeSequence: false });
console.log(`model ${path.relative(root, modelPath)}: loaded in ${loadMs.toFixed(0)} ms; chat wrapper ${wrapperName}; ` +
  `bos=${model.tokens.bos} eos=${model.tokens.eos} (${model.tokens.eosString}) eot=${model.tokens.eot}`);

// training sequences by (system, turns) for the token-level comparison
const trainingByKey = new Map();
if (training && corpus) {
  corpus.conversations.forEach((c, i) => trainingByKey.set(JSON.stringify([c.system, c.turns.map((t) => t[0])]), training.sequences[i]));
}

let genTokens = 0;
let genMs = 0;
let tokenChecks = 0;
let tokenMismatches = 0;

/** Run one conversation through a fresh LlamaChatSession; returns per-turn results. */
async function chat(variant, questions) {
  const opts = { contextSequence: sequence };
  if (variant === 'helpful' || variant === 'pirate') opts.systemPrompt = answers.system_prompts[variant];
  const session = new LlamaChatSession(opts);
  if (variant === 'none') session.setChatHistory([]);           // explicit history without a system message
  if (variant === 'node-llama-cpp-default' && JSON.stringify(session.getChatHistory()) !== JSON.stringify(defaultHistory)) {
    throw new Error('unexpected default chat history');
  }
  const results = [];
  for (const q of questions) {
    const start = performance.now();
    const r = await session.promptWithMeta(q, { temperature: 0, seed: SEED, maxTokens: 200 });
    genMs += performance.now() - start;
    genTokens += model.tokenize(r.responseText).length + 1; // + the <|im_end|> token
    results.push({ question: q, text: r.responseText, stopReason: r.stopReason });
  }
  const systemText = variant === 'none' ? null : answers.system_prompts[variant];
  const trained = trainingByKey.get(JSON.stringify([systemText, questions]));
  if (trained) {
    // the tokens node-llama-cpp evaluated must be the training tokens (the final <|im_end|> is sampled, not evaluated)
    tokenChecks++;
    const evaluated = sequence.contextTokens;
    const expected = trained.tokens.slice(0, -1);
    if (evaluated.length < expected.length || expected.some((t, i) => t !== evaluated[i])) {
      tokenMismatches++;
      fail(`${variant} ${JSON.stringify(questions)}: evaluated tokens differ from training tokens`);
    }
  }
  session.dispose({ disposeSequence: false });
  return results;
}

// 2. every question under every system-prompt variant -------------------------------------------
const variants = Object.keys(answers.system_prompts);
const rows = [];
for (const c of answers.cases) {
  const row = { question: c.question };
  for (const v of variants) {
    const expected = c[answers.answer_field_by_system_prompt[v]];
    const [r] = await chat(v, [c.question]);
    const ok = r.text === expected && r.stopReason === 'eogToken';
    if (!ok) fail(`[${v}] ${c.question} -> ${JSON.stringify(r.text)} (${r.stopReason}); expected ${JSON.stringify(expected)}`);
    row[v] = ok ? 'ok' : 'FAIL';
  }
  row.answer = c.answer;
  rows.push(row);
}
console.log('\nsingle-turn answers (ok = exact text and stopReason "eogToken" at <|im_end|>):');
const header = ['question', ...variants, 'answer (pirate: "Arr! " + answer)'];
console.log('| ' + header.join(' | ') + ' |');
console.log('|' + header.map(() => ' --- ').join('|') + '|');
for (const r of rows) console.log('| ' + [r.question, ...variants.map((v) => r[v]), r.answer].join(' | ') + ' |');

// 3. two-turn conversations ------------------------------------------------------------------------
// (a) every trained two-turn conversation (answers.json two_turn_cases) must be exact;
// (b) a few pairs that were never trained are tried for information only (not a failure).
const caseByQuestion = new Map(answers.cases.map((c) => [c.question, c]));
async function twoTurn(variant, pair) {
  const res = await chat(variant, pair);
  return res.map((r, i) => {
    const expected = caseByQuestion.get(pair[i])[answers.answer_field_by_system_prompt[variant]];
    return { ok: r.text === expected && r.stopReason === 'eogToken', got: r, expected };
  });
}
let twoTurnOk = 0;
let twoTurnTotal = 0;
for (const [variant, q1, q2] of answers.two_turn_cases) {
  (await twoTurn(variant, [q1, q2])).forEach((r, i) => {
    twoTurnTotal++;
    if (r.ok) twoTurnOk++;
    else fail(`[${variant}] two-turn ${JSON.stringify([q1, q2])} turn ${i + 1} -> ${JSON.stringify(r.got.text)} (${r.got.stopReason})`);
  });
}
console.log(`\ntrained two-turn conversations: ${twoTurnOk}/${twoTurnTotal} answers exact`);
const trainedPairs = new Set(answers.two_turn_cases.map(([v, a, b]) => JSON.stringify([v, a, b])));
let unseenOk = 0;
let unseenTotal = 0;
const unseenFailures = [];
const qList = answers.cases.map((c) => c.question);
for (const variant of ['none', 'pirate']) {
  for (let i = 0; i < qList.length; i += 3) {
    const pair = [qList[i], qList[(i * 7 + 5) % qList.length]];
    if (pair[0] === pair[1] || trainedPairs.has(JSON.stringify([variant, ...pair]))) continue;
    const res = await twoTurn(variant, pair);
    unseenTotal++;
    if (res.every((r) => r.ok)) unseenOk++;
    else unseenFailures.push(`[${variant}] ${pair.join(' / ')} -> ${JSON.stringify(res.map((r) => r.got.text))}`);
  }
}
console.log(`untrained two-turn pairs (informational): ${unseenOk}/${unseenTotal} conversations fully exact`);
for (const f of unseenFailures) console.log(`  info: ${f}`);
if (training) console.log(`token-level check: ${tokenChecks - tokenMismatches}/${tokenChecks} conversations evaluated exactly the training tokens`);
else console.log('token-level check skipped (no build/tokens.json; run tokenize.mjs first)');

// 4. logits vs the trainer -------------------------------------------------------------------------
// Once with the default context (flash attention + F16 KV cache: what applications get; ~3e-3 off)
// and once with an F32 KV cache and no flash attention, which isolates the GGUF conversion itself:
// then the only differences are float32 rounding (~1e-5).
const f32Context = await model.createContext({ contextSize: 512, threads: 1, seed: SEED, flashAttention: false,
  experimentalKvCacheKeyType: 'F32', experimentalKvCacheValueType: 'F32' });
const f32Sequence = f32Context.getSequence();
for (const [label, seq, tolerance] of [['default context (flash attn, kv f16)', sequence, 2e-2],
  ['kv f32, no flash attn', f32Sequence, 1e-4]]) {
  for (const ref of reference.references) {
    await seq.clearHistory();
    const prompt = ref.prompt_tokens;
    const input = [...prompt.slice(0, -1), [prompt[prompt.length - 1], { generateNext: { logits: true } }]];
    const out = await seq.controlledEvaluate(input);
    const logits = out[out.length - 1].next.logits;
    let maxDiff = 0;
    let argmaxLlama = -1;
    let argmaxTorch = -1;
    for (let t = 0; t < ref.logits.length; t++) {
      const v = logits.get(t) ?? -Infinity;
      maxDiff = Math.max(maxDiff, Math.abs(v - ref.logits[t]));
      if (argmaxLlama < 0 || v > logits.get(argmaxLlama)) argmaxLlama = t;
      if (argmaxTorch < 0 || ref.logits[t] > ref.logits[argmaxTorch]) argmaxTorch = t;
    }
    const range = Math.max(...ref.logits) - Math.min(...ref.logits);
    const ok = maxDiff <= tolerance && argmaxLlama === argmaxTorch;
    if (!ok) fail(`logits (${label}) for ${ref.id}: max |diff| ${maxDiff}`);
    console.log(`logits ${label}, ${ref.id} (${prompt.length} prompt tokens): max |llama.cpp - pytorch| = ${maxDiff.toExponential(2)} ` +
      `over ${ref.logits.length} logits (range ${range.toFixed(1)}, tolerance ${tolerance}), argmax ${argmaxLlama} vs ${argmaxTorch} -> ${ok ? 'ok' : 'FAIL'}`);
  }
}
await f32Context.dispose();

// 5. speed -----------------------------------------------------------------------------------------
await sequence.clearHistory();
const story = caseByQuestion.get('Tell me a story.');
const session = new LlamaChatSession({ contextSequence: sequence });
session.setChatHistory([]);
const s0 = performance.now();
const storyRes = await session.promptWithMeta(story.question, { temperature: 0, maxTokens: 200 });
const storyMs = performance.now() - s0;
const storyTokens = model.tokenize(storyRes.responseText).length + 1;
session.dispose({ disposeSequence: false });
console.log(`\nspeed (threads 1): story ${storyTokens} tokens in ${storyMs.toFixed(1)} ms = ${(storyTokens / storyMs * 1000).toFixed(0)} tokens/s ` +
  `(incl. prompt); all chat prompts: ${genTokens} tokens in ${genMs.toFixed(0)} ms = ${(genTokens / genMs * 1000).toFixed(0)} tokens/s`);

const total = answers.cases.length * variants.length;
console.log(`\n${failures === 0 ? 'PASS' : 'FAIL'}: ${total} single-turn checks, ${twoTurnTotal} two-turn answers, ` +
  `${2 * reference.references.length} logit comparisons, ${failures} failure(s)`);
await context.dispose();
await model.dispose();
process.exit(failures === 0 ? 0 : 1);
