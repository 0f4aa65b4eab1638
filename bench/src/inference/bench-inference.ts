/**
 * The inference benchmark: the same chat requests and embeddings batches run by the engines alone
 * (each in its own piscina worker in this process) and through the Keel kernel's `/v1` API (the
 * kernel in a child process, so this client does not share its event loop), in one run, with
 * the two sides alternating request by request so that drift lands on both. Then `/api/health`
 * latency while generations stream back to back.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuProfArgs } from '../common/server-settings.js';
import { startServer, type ServerProcess } from '../http/spawn-server.js';
import { EngineSide } from './engine-side.js';
import { probeHealth } from './health-probe.js';
import { KernelClient } from './kernel-client.js';
import { MachineLoad } from './machine-load.js';
import { CHILD_ENV } from './kernel-settings.js';
import { embeddingsLine, healthLine, settingsLine, sideLine, summaryTable } from './report.js';
import { inferenceSettingsFromEnv, type InferenceBenchSettings } from './settings.js';
import { median } from './stats.js';
import { compareChat, verdicts, type ChatComparison, type EmbeddingsComparison, type InferenceBenchSummary } from './summarize.js';
import type { GenerationSample } from './timing.js';
import {
  chatWorkloads, EMBEDDING_MODEL_ID, GLOVE_DIR, haveGlove, haveStories, SHARED_EMBEDDINGS_DIR, SHARED_LLM_DIR, sentences, type ChatWorkload,
} from './workloads.js';

const KERNEL_SCRIPT = new URL('./kernel-server.js', import.meta.url);

export async function benchInference(settings: InferenceBenchSettings = inferenceSettingsFromEnv()): Promise<InferenceBenchSummary> {
  const workloads = chatWorkloads(settings);
  console.log(settingsLine(settings, workloads));
  const token = randomBytes(24).toString('hex');
  const server = await startKernel(token, settings);
  const client = new KernelClient(server.port, token);
  const engine = new EngineSide();
  const machine = new MachineLoad(() => server.cpuMicros());
  try {
    await machine.begin();
    const chats: ChatComparison[] = [];
    for (const workload of workloads) chats.push(await benchChat(workload, engine, server, client, settings));

    console.log(`  /api/health: sequential probes every ${settings.healthIntervalMs} ms, ${settings.healthS} s idle, then ${settings.healthS} s of back-to-back streamed generations`);
    const idle = await probeHealth(client, settings.healthIntervalMs, sleep(settings.healthS * 1000));
    console.log(healthLine('idle', idle));
    const story = workloads[0]!;
    const load = generateFor(client, story, settings.healthS * 1000);
    const duringGeneration = await probeHealth(client, settings.healthIntervalMs, load);
    const generations = await load;
    console.log(healthLine('during generation', duringGeneration));

    const embeddings = haveGlove() ? await benchEmbeddings(engine, client, settings) : null;
    if (!embeddings) console.log(`  embeddings: skipped (${GLOVE_DIR} is absent)`);

    const othersCpuShare = await machine.othersShare();
    const partial = { chats, health: { idle, duringGeneration, generations }, embeddings, othersCpuShare };
    const summary: InferenceBenchSummary = { ...partial, verdicts: verdicts(partial) };
    console.log(`\n${summaryTable(summary)}`);
    return summary;
  } finally {
    client.close();
    await engine.close();
    await server.stop();
  }
}

/** The kernel child, given the admin token and model folders through its environment. */
async function startKernel(token: string, settings: InferenceBenchSettings): Promise<ServerProcess> {
  const modelsDirs = [...(haveStories() ? [SHARED_LLM_DIR] : []), ...(haveGlove() ? [SHARED_EMBEDDINGS_DIR] : [])];
  const execArgv = cpuProfArgs(settings.cpuProfDir);
  process.env[CHILD_ENV.token] = token;
  process.env[CHILD_ENV.modelsDirs] = JSON.stringify(modelsDirs);
  try {
    return await startServer(KERNEL_SCRIPT, execArgv);
  } finally {
    delete process.env[CHILD_ENV.token];
    delete process.env[CHILD_ENV.modelsDirs];
  }
}

async function benchChat(workload: ChatWorkload, engine: EngineSide, server: ServerProcess, client: KernelClient, settings: InferenceBenchSettings): Promise<ChatComparison> {
  const onEngine = async () => {
    const before = process.cpuUsage();
    const sample = await engine.chat(workload.modelPath, workload.prompt, workload.maxTokens);
    const used = process.cpuUsage(before);
    return { ...sample, cpuMs: (used.user + used.system) / 1000 };
  };
  const onKernel = async () => {
    const before = await server.cpuMicros();
    const sample = await client.streamChat(workload.modelId, workload.prompt, workload.maxTokens);
    return { ...sample, cpuMs: ((await server.cpuMicros()) - before) / 1000 };
  };
  for (let i = 0; i < settings.warmup; i++) {
    await onEngine();
    await onKernel();
  }
  const engineSamples: GenerationSample[] = [];
  const kernelSamples: GenerationSample[] = [];
  for (let i = 0; i < settings.reps; i++) {
    // Alternate which side goes first, so neither always follows the other.
    if (i % 2 === 0) {
      engineSamples.push(await onEngine());
      kernelSamples.push(await onKernel());
    } else {
      kernelSamples.push(await onKernel());
      engineSamples.push(await onEngine());
    }
  }
  const comparison = compareChat(workload, engineSamples, kernelSamples);
  console.log(sideLine(workload, 'engine', comparison.engine));
  console.log(sideLine(workload, 'kernel', comparison.kernel));
  if (!comparison.sameAnswer) console.log(`  ${workload.label}: the two sides did not give the same answer: the comparison is suspect`);
  return comparison;
}

/** Streams generations one after another until `ms` have passed; resolves with how many ran. */
async function generateFor(client: KernelClient, workload: ChatWorkload, ms: number): Promise<number> {
  const end = performance.now() + ms;
  let count = 0;
  while (performance.now() < end) {
    await client.streamChat(workload.modelId, workload.prompt, workload.maxTokens);
    count++;
  }
  return count;
}

async function benchEmbeddings(engine: EngineSide, client: KernelClient, settings: InferenceBenchSettings): Promise<EmbeddingsComparison> {
  const batch = sentences(settings.embedBatch);
  const sides = [
    () => timed(() => engine.embed(GLOVE_DIR, batch), batch.length),
    () => timed(() => client.embed(EMBEDDING_MODEL_ID, batch), batch.length),
    () => timed(() => client.embed(EMBEDDING_MODEL_ID, batch, 'base64'), batch.length),
  ];
  for (let i = 0; i < settings.warmup; i++) for (const side of sides) await side();
  const ms: number[][] = sides.map(() => []);
  for (let i = 0; i < settings.embedReps; i++) {
    // Rotate the order, so no side always follows the same one.
    for (let j = 0; j < sides.length; j++) {
      const k = (i + j) % sides.length;
      ms[k]!.push(await sides[k]!());
    }
  }
  const perSec = (times: number[]) => median(times.map((t) => batch.length / (t / 1000)));
  const [engineInputsPerSec, kernelInputsPerSec, kernelBase64InputsPerSec] = ms.map(perSec) as [number, number, number];
  const result: EmbeddingsComparison = {
    batch: batch.length,
    engineInputsPerSec,
    kernelInputsPerSec,
    kernelBase64InputsPerSec,
    ratio: kernelInputsPerSec / engineInputsPerSec,
    base64Ratio: kernelBase64InputsPerSec / engineInputsPerSec,
  };
  console.log(embeddingsLine(result));
  return result;
}

/** Runs `call` and resolves with its duration in ms; it must give one vector per input. */
async function timed(call: () => Promise<number>, expected: number): Promise<number> {
  const started = performance.now();
  const vectors = await call();
  const ms = performance.now() - started;
  if (vectors !== expected) throw new Error(`embeddings: ${vectors} vectors for ${expected} inputs.`);
  return ms;
}
