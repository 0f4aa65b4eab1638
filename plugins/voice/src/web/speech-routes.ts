/**
 * The web example's speech routes (reference B.15), for the calling account's choices:
 * `POST /api/tts` (audio bytes), `POST /api/stt/transcriptions` (+ `/api/stt/transcribe`) and
 * `POST /api/voices/clone`, every body bounded by the plugin's limits. An upload is read inside its
 * slot (the service's `transcribeUpload`/`cloneUpload`), as on `/v1`: otherwise one account could
 * open many connections each holding `maxUploadBytes` of audio, and a body that never ends would
 * never meet the deadline.
 */
import { badRequest, defineSchema, HANDLED, route, type AnyRoute } from '@keel/plugin-sdk';
import { sanitizeSyntax } from '@keel/voice';
import type { ChosenVoice } from './account-voices.js';
import type { IncomingMessage } from 'node:http';
import { readAudioUpload, type AudioUpload } from '../audio-upload.js';
import { refuseUnread } from '../openai/refuse-unread.js';
import { findClone, findProfile, voiceDirectory } from './voice-directory.js';
import { answering } from './web-errors.js';
import { activeProvider, currentOf, flagOf, type VoiceWebContext } from './web-context.js';
import { BASE_VOICE_NAMES, formatOf, languageOf, speedOf, voiceRoleOf } from './web-values.js';

const ttsBody = defineSchema({
  type: 'object',
  properties: {
    input: { type: 'string' },
    text: { type: 'string' },
    voice: { type: 'string', maxLength: 256 },
    format: { type: 'string', maxLength: 32 },
    response_format: { type: 'string', maxLength: 32 },
    language: { type: 'string', maxLength: 64 },
    role: { type: 'string', maxLength: 32 },
    speed: { type: ['number', 'string'] },
    sanitize_syntax: { type: ['boolean', 'string', 'integer'] },
  },
});

/** Suffixes a reference recording may have: local engines read these, remote ones more (reference B.15). */
const LOCAL_CLONE_SUFFIXES = ['wav', 'flac', 'ogg'];
const REMOTE_CLONE_SUFFIXES = [...LOCAL_CLONE_SUFFIXES, 'mp3', 'mpeg', 'mpga', 'm4a', 'webm', 'aac'];

export function speechRoutes(ctx: VoiceWebContext): AnyRoute[] {
  const form = (req: IncomingMessage, signal: AbortSignal) =>
    readAudioUpload(req, { maxFileBytes: ctx.limits.maxUploadBytes, maxFields: 8, maxFieldBytes: ctx.limits.maxFieldBytes, fileSetting: 'limits.maxUploadBytes' }, signal);

  const tts = route({
    method: 'POST',
    path: '/api/tts',
    summary: "Speaks text with this account's provider and voice (or the voice named): the audio bytes",
    tags: ['voice'],
    body: ttsBody,
    // Text of the longest input, in the worst UTF-8 case, plus the other fields.
    bodyLimitBytes: ctx.limits.maxInputChars * 4 + 16 * 1024,
    responses: { 200: { contentType: 'audio/wav' } },
    handler: async ({ body, principal, signal, koa }) => {
      const raw = body.input ?? body.text ?? '';
      if (!raw.trim()) throw badRequest('Missing input text.');
      if (raw.length > ctx.limits.maxInputChars) throw badRequest(`The input text has ${raw.length} characters; at most ${ctx.limits.maxInputChars} (the voice plugin's limits.maxInputChars).`);
      const format = formatOf(body.response_format ?? body.format);
      const speed = speedOf(body.speed);
      const language = languageOf(body.language);
      const role = voiceRoleOf(body.role);
      const sanitize = flagOf(body.sanitize_syntax, true);
      // Markup alone is no text to speak (the manager strips it when `sanitize` holds).
      if (sanitize && !sanitizeSyntax(raw).trim()) throw badRequest('Missing input text.');
      const choice = ctx.choices.get(principal.account);
      const provider = activeProvider(ctx, choice);
      const voice = await voiceFor(ctx, principal.account, provider, body.voice, role ? choice.roleVoices[role] ?? choice.voice : choice.voice);
      const spoken = await answering(() => ctx.backend.speak(principal.account, {
        text: raw,
        format,
        ...(sanitize ? {} : { sanitizeSyntax: false }),
        provider,
        ...(voice ? { voice } : {}),
        ...(speed ?? choice.speed ? { speed: speed ?? choice.speed! } : {}),
        ...(language ?? choice.language ? { language: language ?? choice.language! } : {}),
        signal,
      }));
      koa.status = 200;
      koa.set({ 'content-type': spoken.contentType, 'content-disposition': `inline; filename="speech.${spoken.format}"`, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
      koa.body = spoken.bytes;
      return HANDLED;
    },
  });

  const stt = (path: string) => route({
    method: 'POST',
    path,
    summary: path.endsWith('transcribe') ? 'Alias of POST /api/stt/transcriptions' : 'Transcribes one audio file (multipart `file`, `language`, `prompt`): {ok, text}',
    tags: ['voice'],
    bodyKind: 'multipart-stream',
    responses: { 200: {} },
    handler: async ({ principal, signal, koa }) => {
      let read = false;
      const heard = await refuseUnread(() => answering(() => ctx.backend.transcribeUpload(principal.account, signal, async (inner) => {
        const { fields, file } = await form(koa.req, inner);
        read = true;
        if (!file || file.bytes.length === 0) throw badRequest('Missing audio file.');
        const language = languageOf(fields.get('language')) ?? ctx.choices.get(principal.account).language;
        const prompt = fields.get('prompt');
        return {
          audio: { bytes: file.bytes, filename: file.filename || 'audio.wav', contentType: file.mimeType },
          ...(language ? { language } : {}),
          ...(prompt ? { prompt } : {}),
        };
      })), () => read);
      return { ok: true, text: heard.text };
    },
  });

  const clone = route({
    method: 'POST',
    path: '/api/voices/clone',
    summary: 'Clones a voice from one recording (multipart `file`, `name`, `engine`/`provider`, `reference_text`, `validate` default true) into this account\'s voices',
    tags: ['voice'],
    bodyKind: 'multipart-stream',
    responses: { 200: {} },
    handler: async ({ principal, signal, koa }) => {
      let read = false;
      let fields: AudioUpload['fields'] = new Map();
      const made = await refuseUnread(() => answering(() => ctx.backend.cloneUpload(principal.account, signal, async (inner) => {
        const received = await form(koa.req, inner);
        read = true;
        fields = received.fields;
        const { file } = received;
        if (!file || file.bytes.length === 0) throw badRequest('Missing audio file.');
        const provider = (fields.get('provider') ?? fields.get('engine') ?? ctx.defaults.cloningEngine).trim();
        const suffix = (file.filename.split('.').pop() ?? '').toLowerCase();
        const allowed = isLocalEngine(provider) ? LOCAL_CLONE_SUFFIXES : REMOTE_CLONE_SUFFIXES;
        if (!allowed.includes(suffix)) throw badRequest(`Unsupported reference audio '${file.filename || '(no name)'}': send a ${allowed.map((s) => `.${s}`).join(', ')} file.`);
        return {
          audio: { bytes: file.bytes, filename: file.filename, contentType: file.mimeType },
          provider,
          ...(fields.get('name') ? { name: fields.get('name')! } : {}),
          ...(fields.get('reference_text') ? { reference_text: fields.get('reference_text')! } : {}),
        };
      })), () => read);
      // Validation speaks with the new voice; a voice that cannot speak is removed and the answer says so.
      const validation = flagOf(fields.get('validate'), true) ? await answering(() => ctx.backend.validateClone(principal.account, made.voice_id, signal)) : null;
      return { ok: true, voice_id: made.voice_id, name: made.name, engine: made.engine, voice: made, validation, current: currentOf(ctx, ctx.choices.get(principal.account)) };
    },
  });

  return [tts, stt('/api/stt/transcriptions'), stt('/api/stt/transcribe'), clone] as AnyRoute[];
}

const isLocalEngine = (provider: string) => !['hosted', 'compatible', 'remote', 'proxy', 'openai', 'openai-compatible'].includes(provider.toLowerCase());

/**
 * The voice a request speaks with: the one it names (a cloned voice by id or name, or a profile of
 * the active provider; `base`/`default`/`piper`/`tts` mean none), else the account's choice.
 */
async function voiceFor(ctx: VoiceWebContext, account: string, provider: string, named: string | undefined, chosen: ChosenVoice | null): Promise<string | undefined> {
  const wanted = named?.trim();
  if (!wanted) return chosen?.id;
  if (BASE_VOICE_NAMES.has(wanted.toLowerCase())) return undefined;
  const dir = await answering(() => voiceDirectory(ctx.backend, account, provider));
  const found = findClone(dir.clones, wanted)?.id ?? findProfile(dir.profiles, wanted)?.profile_id;
  if (!found) throw badRequest(`Unknown voice: ${wanted} (neither a cloned voice of this account nor a profile of the provider ${provider}).`);
  return found;
}
