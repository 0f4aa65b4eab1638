/**
 * `transcribe_audio` (reference runtime-nodes §10): speech to text in a flow. The payload is the
 * origin's `llm_call` payload with `output {modality: "text", task: "transcription"}` and `media`
 * holding the audio: an artifact reference (a string id becomes `{$artifact: id, type: "audio"}`,
 * the `audio_artifact` of a `generate_voice` node is one) or inline bytes (`{content | bytes:
 * <base64>, filename?, content_type?}` or a `data:` URL). Artifacts are read from the run's own
 * account only; file paths (strings starting `/` or `~`) are kept in the payload as the origin keeps
 * them but not read: a run may not read the server's files.
 */
import { effectNode, type EffectContext, type NodeInputs } from '@keel/plugin-gateway-runs';
import type { AudioInput } from '@keel/voice';
import { defined, effectConfigOf, fieldOf, floatField, mediaPayload, stringField, type MediaPayload } from './media-fields.js';
import type { VoiceNodeDeps } from './voice-node-deps.js';

const AUDIO_PINS = ['audio', 'audio_artifact', 'artifact', 'media'] as const;
const DEFAULT_PROMPT = 'Transcribe this audio.';

/** The audio input as a media item (§10: strings are artifact ids unless they start with `/` or `~`). */
export function audioMediaItem(value: unknown): Record<string, unknown> | null {
  const one = Array.isArray(value) ? value[0] : value;
  if (typeof one === 'string') {
    const s = one.trim();
    if (!s) return null;
    if (s.startsWith('/') || s.startsWith('~')) return { type: 'audio', file_path: s };
    if (s.startsWith('data:')) return { type: 'audio', url: s };
    return { $artifact: s, type: 'audio' };
  }
  if (one && typeof one === 'object') return { ...(one as Record<string, unknown>), type: 'audio' };
  return null;
}

function audioOf(inputs: NodeInputs, config: Record<string, unknown>): Record<string, unknown> | null {
  for (const key of AUDIO_PINS) {
    const item = audioMediaItem(fieldOf(inputs, config, [key]));
    if (item) return item;
  }
  return null;
}

export function transcribeAudioNode(deps: VoiceNodeDeps) {
  return effectNode<MediaPayload, Record<string, unknown>>({
    payload: (inputs, node) => {
      const config = effectConfigOf(node);
      const prompt = stringField(inputs, config, ['prompt']);
      const output = defined({
        modality: 'text',
        task: 'transcription',
        language: stringField(inputs, config, ['language']),
        prompt,
        response_format: stringField(inputs, config, ['response_format']),
        format: stringField(inputs, config, ['format']),
        provider: stringField(inputs, config, ['provider', 'stt_provider', 'sttProvider', 'provider_voice']),
        model: stringField(inputs, config, ['model', 'stt_model', 'sttModel']),
        temperature: floatField('transcribe_audio', inputs, config, ['temperature']),
      });
      const audio = audioOf(inputs, config);
      return mediaPayload(prompt ?? DEFAULT_PROMPT, output, audio ? [audio] : []);
    },
    sideEffects: (payload) => (deps.isLocal('stt', payload.output.provider as string | undefined) ? 'local' : 'external'),
    perform: (payload, context) => transcribe(deps, payload, context),
    outputs: (result) => {
      const text = (result.text as { content?: unknown } | null)?.content ?? result.content;
      return {
        text: typeof text === 'string' ? text : '',
        success: true,
        meta: { schema: 'abstractflow.transcribe_audio.v1.meta', version: 1, modality: 'text', task: 'transcription' },
        raw: result,
      };
    },
  });
}

async function transcribe(deps: VoiceNodeDeps, payload: MediaPayload, context: EffectContext): Promise<Record<string, unknown>> {
  const item = payload.media?.[0];
  if (!item) throw new Error('transcribe_audio requires audio: an artifact reference or id (the `audio` input, e.g. a generate_voice `audio_artifact`) or inline bytes.');
  const { audio, source } = await audioBytes(deps, item, context);
  const out = payload.output;
  const prompt = typeof out.prompt === 'string' ? out.prompt : undefined;
  const heard = await deps.speech.transcribe(context.account, defined({
    audio,
    language: out.language as string | undefined,
    prompt,
    provider: out.provider as string | undefined,
    model: out.model as string | undefined,
    signal: context.signal,
  }));
  return {
    content: heard.text,
    data: null,
    outputs: {},
    resources: [],
    warnings: [],
    errors: [],
    usage: null,
    provider: heard.provider,
    model: heard.model ?? null,
    finish_reason: 'stop',
    metadata: { source, size_bytes: audio.bytes.length },
  };
}

/** The bytes of the media item, bounded by `limits.maxAudioBytes`. */
async function audioBytes(deps: VoiceNodeDeps, item: Record<string, unknown>, context: EffectContext): Promise<{ audio: AudioInput; source: Record<string, unknown> }> {
  const max = deps.limits.maxAudioBytes;
  const id = item.$artifact ?? item.artifact_id;
  if (typeof id === 'string' && id) {
    if (!deps.artifacts) throw new Error("transcribe_audio reads artifacts through the 'artifacts' plugin, which is not loaded (add it to the config's plugins).");
    let read;
    try {
      read = await deps.artifacts.readContent(context.account, id, max);
    } catch (err) {
      throw new Error(`transcribe_audio could not read artifact ${id}: ${(err as Error).message} (the voice plugin's limits.maxAudioBytes)`, { cause: err });
    }
    if (!read) throw new Error(`transcribe_audio: artifact ${id} was not found.`);
    return { audio: { bytes: read.bytes, filename: read.record.filename, contentType: read.record.content_type }, source: { artifact_id: id } };
  }
  const inline = typeof item.url === 'string' ? dataUrlOf(item.url) : typeof (item.content ?? item.bytes) === 'string' ? String(item.content ?? item.bytes) : null;
  if (inline !== null) {
    // Base64 is 4 characters per 3 bytes: the text is refused before it is decoded.
    if (inline.length > Math.ceil(max / 3) * 4 + 4) throw new Error(`transcribe_audio inline audio is larger than ${max} bytes (the voice plugin's limits.maxAudioBytes).`);
    const bytes = Buffer.from(inline, 'base64');
    if (!bytes.length) throw new Error('transcribe_audio inline audio is empty or not base64.');
    const filename = typeof item.filename === 'string' ? item.filename : undefined;
    const contentType = typeof item.content_type === 'string' ? item.content_type : undefined;
    return { audio: defined({ bytes, filename, contentType }), source: { inline: true } };
  }
  if (typeof item.file_path === 'string') throw new Error(`transcribe_audio does not read server paths (${item.file_path}); give an artifact of the run or inline bytes.`);
  throw new Error('transcribe_audio audio must be an artifact reference, an artifact id, or inline bytes ({content: <base64>}).');
}

/** The base64 part of a `data:<type>;base64,<data>` URL, or null. */
function dataUrlOf(url: string): string | null {
  const m = /^data:[^,;]*(?:;[^,;]*)*;base64,/i.exec(url);
  return m ? url.slice(m[0].length) : null;
}
