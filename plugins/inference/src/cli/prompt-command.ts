/**
 * `keel prompt`: a local command-line model client on Keel's own models, speaking the protocol a
 * model relay expects of a CLI client (relay reference §4.3, §4.7): the prompt on stdin, one JSON
 * result envelope (`--output-format json`) or one JSON event per line (`stream-json`), errors as
 * `is_error: true` envelopes with exit 1. Also `--version`, `auth status --json` (nothing to sign in
 * to) and `models --json` (the chat models, for discovery without generating text).
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { UsageError, type CommandContext, type CommandOutput } from '@keel/plugin-sdk';
import type { DiscoveryCapabilities } from '../discovery/capability-blocks.js';
import type { InferenceService } from '../inference-service.js';
import type { OpenAiAudioSlot } from '../openai/audio-slot.js';
import type { ChatMessage, GenerationOutcome } from '../providers/provider.js';
import { DEFAULT_CLI_ACCOUNT, EFFORTS, PROMPT_VERSION, PromptEvents, type PromptUsage } from './prompt-events.js';

/** The inference plugin's exports (the command boots the plugin and generates through them). */
export interface PromptExports {
  inference: InferenceService;
  capabilities: DiscoveryCapabilities;
  audio: OpenAiAudioSlot;
}

/** The output cap when a model does not say its context length. */
const DEFAULT_MAX_TOKENS = 4096;

const OPTIONS = {
  print: { type: 'boolean', short: 'p' },
  model: { type: 'string' },
  'system-prompt': { type: 'string' },
  effort: { type: 'string' },
  'json-schema': { type: 'string' },
  'output-format': { type: 'string' },
  'include-partial-messages': { type: 'boolean' },
  verbose: { type: 'boolean' },
  json: { type: 'boolean' },
  version: { type: 'boolean' },
  account: { type: 'string' },
  // Passed by relays to turn off an agentic client's tools, settings, MCP servers, slash commands and
  // saved sessions: `keel prompt` has none of them, so they are accepted and change nothing.
  tools: { type: 'string' },
  'setting-sources': { type: 'string' },
  'strict-mcp-config': { type: 'boolean' },
  'disable-slash-commands': { type: 'boolean' },
  'no-session-persistence': { type: 'boolean' },
} as const;

export async function run(ctx: CommandContext<PromptExports>): Promise<number> {
  const { values, positionals } = parse(ctx.args);
  if (values.version) {
    ctx.stdout.write(`${PROMPT_VERSION} (keel prompt)\n`);
    return 0;
  }
  const [sub, ...more] = positionals;
  if (sub === 'auth') {
    if (more.length !== 1 || more[0] !== 'status') throw new UsageError("keel prompt auth takes one subcommand: 'status'.");
    return authStatus(ctx.stdout, values.json === true);
  }
  if (sub === 'models') {
    if (more.length) throw new UsageError('keel prompt models takes no arguments.');
    return listModels(ctx, values.json === true, values.account ?? DEFAULT_CLI_ACCOUNT);
  }
  if (sub !== undefined) throw new UsageError(`unknown prompt subcommand '${sub}' (the prompt itself goes to stdin).`);
  if (!values.print) throw new UsageError('keel prompt answers one prompt read from stdin: pass -p (print mode).');
  if (!values.model) throw new UsageError('keel prompt needs --model <id> (see keel prompt models --json).');
  const format = values['output-format'] ?? 'json';
  if (format !== 'json' && format !== 'stream-json') throw new UsageError(`--output-format must be json or stream-json (got '${format}').`);

  const events = new PromptEvents(ctx.stdout, format, values['include-partial-messages'] === true, values.model);
  const started = Date.now();
  const problem = checkInputs(values.effort, values['json-schema']);
  if (problem) return events.fail(problem, started);
  const schema = values['json-schema'] === undefined ? undefined : (JSON.parse(values['json-schema']) as Record<string, unknown>);
  const prompt = await readStdin();
  if (!prompt.trim()) return events.fail('The prompt is empty: write it to stdin.', started);

  const { inference } = await ctx.boot();
  const messages: ChatMessage[] = [];
  if (values['system-prompt']) messages.push({ role: 'system', content: values['system-prompt'] });
  messages.push({ role: 'user', content: prompt });
  let outcome: GenerationOutcome;
  try {
    const target = await inference.resolve(values.account ?? DEFAULT_CLI_ACCOUNT, values.model, 'chat');
    // A client without an output cap could run on forever (a grammar that never closes, a context that
    // shifts): the answer is bounded by the model's context length, and says `max_tokens` when cut.
    const contextLength = (await target.provider.findModel(target.model))?.context_length ?? DEFAULT_MAX_TOKENS;
    events.start(schema !== undefined);
    outcome = await inference.chatOn(target, messages, { maxTokens: contextLength, ...(schema ? { jsonSchema: schema } : {}) }, {
      onDelta: (text, channel) => {
        if (channel === 'content') events.delta(text);
      },
    });
  } catch (err) {
    return events.fail((err as Error).message, started);
  }
  const usage: PromptUsage = { input_tokens: outcome.usage?.prompt_tokens ?? 0, output_tokens: outcome.usage?.completion_tokens ?? 0 };
  const stopReason = outcome.finishReason === 'length' ? 'max_tokens' : 'end_turn';
  let structured: unknown;
  if (schema) {
    try {
      structured = JSON.parse(outcome.text);
    } catch {
      return events.fail(`The model's output stopped before it formed JSON matching the schema (stop reason ${stopReason}).`, started, usage);
    }
  }
  return events.finish({ text: outcome.text, structured, stopReason, usage, sessionId: randomBytes(16).toString('hex') }, started);
}

/** Effort and schema are checked before anything boots: a mistake costs no model load. */
function checkInputs(effort: string | undefined, schemaText: string | undefined): string | null {
  if (effort !== undefined && !EFFORTS.includes(effort.toLowerCase())) {
    return `Unsupported --effort '${effort}'. Supported values: ${EFFORTS.join(', ')}.`;
  }
  if (schemaText !== undefined) {
    let schema: unknown;
    try {
      schema = JSON.parse(schemaText);
    } catch (err) {
      return `--json-schema is not valid JSON (${(err as Error).message}).`;
    }
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return '--json-schema must be a JSON object (a JSON Schema).';
  }
  return null;
}

function authStatus(out: CommandOutput, json: boolean): number {
  // Keel's local models need no sign-in: the client is always ready to answer.
  const status = { loggedIn: true, authMethod: 'none', apiProvider: 'local', email: null, subscriptionType: null };
  out.write(json ? `${JSON.stringify(status)}\n` : 'Local models: nothing to sign in to; ready.\n');
  return 0;
}

async function listModels(ctx: CommandContext<PromptExports>, json: boolean, account: string): Promise<number> {
  const { inference } = await ctx.boot();
  const models = (await inference.listModels(account)).filter((m) => m.kinds.includes('chat'));
  // Local models go by their bare name (what `--model` resolves first); others by their full id.
  const listed = models.map((m) => ({
    id: m.provider === 'local' ? m.name : m.id,
    display_name: m.name,
    provider: m.provider,
    context_length: m.context_length ?? null,
    ...(m.description ? { description: m.description } : {}),
  }));
  if (json) ctx.stdout.write(`${JSON.stringify({ models: listed })}\n`);
  else ctx.stdout.write(listed.map((m) => `${m.id}\n`).join(''));
  return 0;
}

function parse(args: string[]) {
  try {
    return parseArgs({ args: joinStringValues(args), strict: true, allowPositionals: true, options: OPTIONS });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/**
 * `--system-prompt "- be brief"` as `--system-prompt=- be brief`: a string option takes the next word
 * whatever it starts with (parseArgs refuses a value beginning with `-` as ambiguous), as relays pass
 * a client's system prompt and schema there.
 */
function joinStringValues(args: string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = args[i]!.startsWith('--') ? args[i]!.slice(2) : '';
    const option = (OPTIONS as Record<string, { type: string }>)[name];
    if (option?.type === 'string' && i + 1 < args.length) joined.push(`--${name}=${args[++i]!}`);
    else joined.push(args[i]!);
  }
  return joined;
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('keel prompt reads the prompt from stdin: pipe it in (echo "question" | keel prompt -p --model <id>).');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
