/**
 * The upstream chat body of a client's `/v1/chat/completions` body (hosted). The upstream speaks the
 * same protocol, so fields pass through (the upstream stays the authority on them) except: the model
 * becomes the upstream's id, the call always streams with usage, local `file_id` parts are expanded,
 * `response_format` follows the hosted rules, and `reasoning_effort: null` counts as absent.
 */
import { unprocessable } from '@keel/plugin-sdk';
import type { FileStore } from '../contracts.js';
import { expandFile } from './local-files.js';

/** Fields used by the relay itself, never sent upstream. */
const LOCAL_FIELDS = ['stream', 'stream_options', 'conversation', 'store', 'n'];

export async function upstreamChatBody(body: Record<string, unknown>, upstreamModel: string, files: FileStore | undefined): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { ...body };
  for (const field of LOCAL_FIELDS) delete out[field];
  if (out.reasoning_effort === null) delete out.reasoning_effort;
  const format = hostedResponseFormat(body.response_format, 'response_format');
  if (format === undefined) delete out.response_format;
  else out.response_format = format;
  out.model = upstreamModel;
  out.messages = await Promise.all((body.messages as Array<Record<string, unknown>>).map((message) => expandMessage(message, files)));
  out.stream = true;
  out.stream_options = { include_usage: true };
  return out;
}

/**
 * A chat `response_format` on the hosted runtime: `text` (or none) sends nothing, `json_schema`
 * needs a non-empty `name` and an object `schema`; `json_object` is refused (not verified upstream).
 */
export function hostedResponseFormat(format: unknown, param: string): Record<string, unknown> | undefined {
  if (format === undefined || format === null) return undefined;
  if (typeof format !== 'object' || Array.isArray(format)) throw unprocessable(`\`${param}\` must be an object with a \`type\`.`, { code: 'invalid_response_format', field: param });
  const record = format as Record<string, unknown>;
  if (record.type === undefined) throw unprocessable(`\`${param}\` needs a \`type\` (\`text\` or \`json_schema\`).`, { code: 'invalid_response_format', field: param });
  if (record.type === 'text') return undefined;
  if (record.type === 'json_object') {
    throw unprocessable(`\`${param}\` type \`json_object\` is not verified on the hosted runtime; use \`json_schema\` with a schema instead.`, { code: 'unsupported_response_format', field: param });
  }
  if (record.type !== 'json_schema') throw unprocessable(`\`${param}\` type \`${String(record.type)}\` is not supported; use \`text\` or \`json_schema\`.`, { code: 'unsupported_response_format', field: param });
  const spec = record.json_schema as Record<string, unknown> | undefined;
  if (typeof spec !== 'object' || spec === null || typeof spec.name !== 'string' || spec.name.trim() === '') {
    throw unprocessable(`\`${param}.json_schema.name\` must be a non-empty string.`, { code: 'invalid_response_format', field: `${param}.json_schema.name` });
  }
  if (typeof spec.schema !== 'object' || spec.schema === null || Array.isArray(spec.schema)) {
    throw unprocessable(`\`${param}.json_schema.schema\` must be a JSON schema object.`, { code: 'invalid_response_format', field: `${param}.json_schema.schema` });
  }
  return record;
}

async function expandMessage(message: Record<string, unknown>, files: FileStore | undefined): Promise<Record<string, unknown>> {
  if (!Array.isArray(message.content)) return message;
  const content = await Promise.all(message.content.map(async (part: unknown) => {
    if (typeof part !== 'object' || part === null) return part;
    const record = part as Record<string, unknown>;
    const file = record.file as Record<string, unknown> | undefined;
    const image = record.image_url as Record<string, unknown> | undefined;
    if (record.type === 'file' && typeof file?.file_id === 'string') return expandFile(files, file.file_id, 'any');
    if (record.type === 'image_url' && typeof image?.file_id === 'string') return expandFile(files, image.file_id, 'image', typeof image.detail === 'string' ? image.detail : undefined);
    if (typeof record.file_id === 'string') return expandFile(files, record.file_id, record.type === 'image_url' || record.type === 'input_image' ? 'image' : 'any');
    return part;
  }));
  return { ...message, content };
}
