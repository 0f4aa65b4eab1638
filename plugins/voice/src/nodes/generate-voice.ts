/**
 * `generate_voice` (reference runtime-nodes §10): text to speech in a flow. The payload is the
 * origin's `llm_call` payload with its `output` selector `{modality: "voice", task: "tts", format}`;
 * the audio is written into the run's workspace (`voice/<node>-<digest>.<format>`) and becomes an
 * artifact of the run, whose reference the node's `audio_artifact` / `artifact_ref` pins carry.
 * Keel records the effect under the node's own type (`generate_voice`), not `llm_call`: the voice
 * plugin performs it, not the LLM handler.
 */
import { createHash } from 'node:crypto';
import { effectNode, type EffectContext } from '@keel/plugin-gateway-runs';
import type { AudioFormat, QualityPreset } from '@keel/voice';
import { defined, effectConfigOf, floatField, mediaPayload, objectField, stringField, type MediaPayload } from './media-fields.js';
import { artifactRefOf, mediaResult, type ArtifactRef } from './media-result.js';
import type { VoiceNodeDeps } from './voice-node-deps.js';

export const FORMATS: readonly AudioFormat[] = ['wav', 'mp3', 'flac', 'ogg', 'opus', 'pcm'];
const FORMAT_ALIASES: Record<string, AudioFormat> = { wave: 'wav' };
const PRESETS: Record<string, QualityPreset> = { low: 'low', fast: 'low', standard: 'standard', balanced: 'standard', high: 'high' };

/** An audio format name as the routes and nodes accept it (`wave` is `wav`), or undefined. */
export function audioFormatOf(value: string): AudioFormat | undefined {
  const name = value.trim().toLowerCase();
  return FORMAT_ALIASES[name] ?? (FORMATS as readonly string[]).find((f) => f === name) as AudioFormat | undefined;
}

/** A quality preset with its aliases (`fast` = low, `balanced` = standard), or undefined. */
export function qualityPresetOf(value: string): QualityPreset | undefined {
  return PRESETS[value.trim().toLowerCase()];
}

export function generateVoiceNode(deps: VoiceNodeDeps) {
  return effectNode<MediaPayload, Record<string, unknown>>({
    payload: (inputs, node) => {
      const config = effectConfigOf(node);
      const text = stringField(inputs, config, ['text', 'prompt']) ?? '';
      const output = defined({
        modality: 'voice',
        task: 'tts',
        format: (stringField(inputs, config, ['format']) ?? 'wav').toLowerCase(),
        voice: stringField(inputs, config, ['voice']),
        profile: stringField(inputs, config, ['profile']),
        instructions: stringField(inputs, config, ['instructions']),
        quality_preset: stringField(inputs, config, ['quality_preset', 'qualityPreset', 'quality']),
        provider: stringField(inputs, config, ['provider', 'tts_provider', 'ttsProvider', 'provider_voice']),
        model: stringField(inputs, config, ['model', 'tts_model', 'ttsModel']),
        speed: floatField('generate_voice', inputs, config, ['speed']),
        extra: objectField(inputs, config, ['extra']),
      });
      return mediaPayload(text, output);
    },
    // Synthesis on this machine (espeak) only writes Keel's own files; a remote provider is a call out.
    sideEffects: (payload) => (deps.isLocal('tts', payload.output.provider as string | undefined) ? 'local' : 'external'),
    perform: (payload, context) => speak(deps, payload, context),
    outputs: (result) => {
      const ref = firstRef(result);
      const item = (result.outputs as { voice?: Array<Record<string, unknown>> } | undefined)?.voice?.[0];
      return {
        artifact_ref: ref,
        audio_artifact: ref,
        artifact_id: ref?.artifact_id ?? null,
        content_type: ref?.content_type ?? null,
        outputs: result.outputs ?? {},
        resources: result.resources ?? [],
        success: ref !== null,
        meta: defined({ schema: 'abstractflow.generate_voice.v1.meta', version: 1, modality: 'voice', provider: item?.provider, model: item?.model }),
        raw: result,
      };
    },
  });
}

function firstRef(result: Record<string, unknown>): ArtifactRef | null {
  const items = (result.outputs as { voice?: Array<{ artifact_ref?: ArtifactRef }> } | undefined)?.voice ?? [];
  return items.find((i) => i.artifact_ref)?.artifact_ref ?? null;
}

async function speak(deps: VoiceNodeDeps, payload: MediaPayload, context: EffectContext): Promise<Record<string, unknown>> {
  const out = payload.output;
  const text = typeof payload.prompt === 'string' ? payload.prompt : '';
  if (!text.trim()) throw new Error('generate_voice requires a non-empty text (the `text` or `prompt` input).');
  if (text.length > deps.limits.maxTextChars) throw new Error(`generate_voice text has ${text.length} characters; at most ${deps.limits.maxTextChars} (the voice plugin's limits.maxTextChars).`);
  const format = audioFormatOf(String(out.format ?? 'wav'));
  if (!format) throw new Error(`generate_voice format '${String(out.format)}' is not supported; use one of ${FORMATS.join(', ')}.`);
  // The preset is checked and recorded as the origin records it; the speech service takes no per-call preset (espeak has none).
  if (out.quality_preset !== undefined && !qualityPresetOf(String(out.quality_preset))) throw new Error(`generate_voice quality_preset '${String(out.quality_preset)}' is not one of low, standard, high (aliases fast, balanced).`);
  const speed = out.speed as number | undefined;
  if (speed !== undefined && (speed < 0.5 || speed > 2)) throw new Error(`generate_voice speed must be between 0.5 and 2.0; got ${speed}.`);
  // Checked before the work: without the artifacts plugin there is nowhere to keep the audio (as the origin without an ArtifactStore).
  if (!deps.artifacts) throw new Error("generate_voice stores its audio as an artifact of the run, and the 'artifacts' plugin is not loaded (add it to the config's plugins).");

  const audio = await deps.speech.speak(context.account, defined({
    text,
    format,
    provider: out.provider as string | undefined,
    model: out.model as string | undefined,
    voice: (out.voice ?? out.profile) as string | undefined,
    speed,
    instructions: out.instructions as string | undefined,
    signal: context.signal,
  }));
  const digest = createHash('sha256').update(audio.bytes).digest('hex');
  const written = await context.writeOutput(`voice/${fileStem(context.nodeId)}-${digest.slice(0, 12)}.${audio.format}`, audio.bytes, audio.contentType);
  if (!written.artifact) throw new Error(`generate_voice wrote ${written.file_path}, but no artifact was recorded for it (see the server log).`);
  const ref = artifactRefOf(written.artifact);
  return mediaResult({
    modality: 'voice',
    task: 'tts',
    format: audio.format,
    provider: audio.provider,
    model: audio.model ?? undefined,
    ref,
    metadata: { file_path: written.file_path, sha256: digest },
  });
}

/** The node id as a file name part (letters, digits, `-`, `_`; at most 64). */
function fileStem(nodeId: string): string {
  return nodeId.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 64) || 'node';
}
