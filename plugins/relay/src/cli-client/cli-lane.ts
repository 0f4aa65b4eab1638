/**
 * `CliLane`: chat and completions on the local command-line client (reference §4). One process per
 * call, never retried (a local call has no account to fail over to); at most
 * `cli.maxConcurrentRequests` at once. Non-stream: the whole call within `cli.timeoutSeconds`;
 * stream: each line within it, and the answer returned only once the first content frame exists
 * (reference §2.8), so every failure before it is a real status.
 */
import { RelayFailure, type CallInfo, type LaneAnswer, type TextLane, type TrafficSink } from '../contracts.js';
import type { RelayConfig } from '../config.js';
import { snapshotOfJson } from '../traffic/body-snapshot.js';
import { childEnv } from './cli-env.js';
import { checkEnvelope, finishReasonOf, NO_STRUCTURED_OUTPUT, OutputShape, structuredContent, usageOf, type Envelope } from './cli-output.js';
import { checkArgvSize, CliProcess, providerFailure } from './cli-process.js';
import { planCliCall, type CliPlan } from './cli-request.js';
import { cliStreamFrames } from './cli-stream.js';
import { Semaphore } from './semaphore.js';

/** The argv the relay appends to `cli.command` (reference §4.3). */
export function cliArguments(plan: CliPlan, model: string, stream: boolean): string[] {
  const args = ['-p', '--model', model, '--tools', '', '--setting-sources', '', '--strict-mcp-config', '--disable-slash-commands', '--no-session-persistence'];
  if (plan.systemPrompt) args.push('--system-prompt', plan.systemPrompt);
  if (plan.effort) args.push('--effort', plan.effort);
  if (plan.schema) args.push('--json-schema', plan.schema);
  args.push(...(stream ? ['--output-format', 'stream-json', '--include-partial-messages', '--verbose'] : ['--output-format', 'json']));
  return args;
}

export class CliLane implements TextLane {
  private readonly semaphore: Semaphore;
  private readonly live = new Set<CliProcess>();

  constructor(
    private readonly settings: RelayConfig['cli'],
    private readonly command: string[],
    private readonly traffic: TrafficSink,
    private readonly env: () => NodeJS.ProcessEnv = () => childEnv(process.env, settings.stripApiKeyEnv),
  ) {
    this.semaphore = new Semaphore(settings.maxConcurrentRequests);
  }

  /** Calls running now (for the status). */
  get active(): number {
    return this.semaphore.inUse;
  }

  /** Calls waiting for a free slot (for the status). */
  get queued(): number {
    return this.semaphore.queued;
  }

  async answer(body: Record<string, unknown>, call: CallInfo): Promise<LaneAnswer> {
    const plan = planCliCall(body, call.route, this.settings.maxSchemaBytes);
    const argv = [...this.command, ...cliArguments(plan, call.upstreamModel, call.stream)];
    const env = this.env();
    checkArgvSize(argv, env);
    this.traffic.write({ phase: 'provider_request', request_id: call.requestId, provider: 'cli', model: call.model, command: argv, body: snapshotOfJson({ prompt: plan.prompt, system_prompt: plan.systemPrompt }) });

    const release = await this.semaphore.acquire(call.signal).catch(() => {
      throw providerFailure(499, 'client_disconnected', 'The client went away before the local client started.');
    });
    let run: CliProcess;
    try {
      run = await CliProcess.start(argv, { env, stdin: plan.prompt, signal: call.signal });
    } catch (err) {
      release();
      throw err;
    }
    this.live.add(run);
    void run.exit().finally(() => {
      this.live.delete(run);
      release();
    });
    const shape = new OutputShape(call.route, call.model);
    const timeoutMs = this.settings.timeoutSeconds * 1000;
    if (!call.stream) return this.collect(run, shape, plan, timeoutMs, call.requestId);

    const frames = cliStreamFrames({
      run, shape, structured: plan.schema !== null, timeoutMs, requestId: call.requestId, traffic: this.traffic, exitMessage,
      includeUsage: (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true,
    });
    // The first frame decides: a failure before it is thrown here as a real status.
    const first = await frames.next();
    return { kind: 'stream', frames: continueWith(first, frames) };
  }

  /** Kills every running client (the plugin stops). */
  stop(): void {
    for (const run of this.live) run.kill();
  }

  private async collect(run: CliProcess, shape: OutputShape, plan: CliPlan, timeoutMs: number, requestId: string): Promise<LaneAnswer> {
    const { code, stdout } = await run.collect(timeoutMs);
    const envelope = parseEnvelope(stdout);
    this.traffic.write({ phase: 'provider_response', request_id: requestId, provider: 'cli', exit_code: code, body: envelope ? snapshotOfJson(envelope) : snapshotOfJson({ stdout: stdout.slice(0, 4096), stderr: run.stderr.slice(-4096) }) });
    if (code !== 0) throw providerFailure(502, 'provider_failure', exitMessage(code, envelope, run.stderr));
    if (!envelope) throw providerFailure(502, 'provider_failure', 'The local command-line client printed no valid JSON result envelope.');
    checkEnvelope(envelope);
    let content: string | null;
    if (plan.schema !== null) {
      content = structuredContent(envelope);
      if (content === null) throw providerFailure(502, 'provider_failure', NO_STRUCTURED_OUTPUT);
    } else if (typeof envelope.result === 'string') content = envelope.result;
    else throw providerFailure(502, 'provider_failure', 'The local command-line client returned an envelope without a text result.');
    const usage = usageOf(envelope.usage) ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    this.traffic.write({ phase: 'outbound_usage', request_id: requestId, response_id: shape.id, model: shape.model, usage, provider: 'cli' });
    return { kind: 'json', status: 200, body: shape.completion(content, finishReasonOf(envelope.stop_reason), usage) };
  }
}

/** The one JSON envelope of `--output-format json` (the last JSON line, should a client print more). */
function parseEnvelope(stdout: string): Envelope | null {
  const candidates = [stdout.trim(), ...stdout.trim().split('\n').reverse()];
  for (const text of candidates) {
    if (!text) continue;
    try {
      const value = JSON.parse(text) as unknown;
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Envelope;
    } catch {
      // try the next candidate
    }
  }
  return null;
}

/** A non-zero exit: the envelope's `result` text, else stderr, else the code (reference §4.7). */
function exitMessage(code: number | null, envelope: Envelope | null, stderr: string): string {
  if (envelope && typeof envelope.result === 'string' && envelope.result.trim()) return envelope.result.trim().slice(0, 2000);
  if (stderr) return stderr.slice(-2000);
  return `The local command-line client exited with ${code === null ? 'a signal' : `code ${code}`}.`;
}

/**
 * The frames from the first one on. Not a generator: a route that gives up before reading any
 * frame (`return()` on a fresh iterator) must still stop the client, which a generator that never
 * started would not do.
 */
function continueWith(first: IteratorResult<string>, rest: AsyncGenerator<string>): AsyncIterableIterator<string> {
  let pending: IteratorResult<string> | null = first;
  const iterator: AsyncIterableIterator<string> = {
    next: async () => {
      if (!pending) return rest.next();
      const value = pending;
      pending = null;
      return value;
    },
    return: async () => {
      pending = null;
      await rest.return(undefined);
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

export { RelayFailure };
