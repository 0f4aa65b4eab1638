/** Engine id resolution (reference B.1, B.3): aliases, `auto`, `none`, and the unknown-id sentence. */
import { VoiceError } from './contracts.js';
import { echoInput } from './echo-input.js';

/** Built into the library: the remote engines; `none` builds no adapter. */
const TTS_ALIASES: Record<string, string> = {
  auto: 'hosted',
  hosted: 'hosted',
  openai: 'hosted',
  compatible: 'compatible',
  remote: 'compatible',
  proxy: 'compatible',
  'openai-compatible': 'compatible',
  none: 'none',
};

const STT_ALIASES: Record<string, string> = {
  auto: 'hosted',
  hosted: 'hosted',
  openai: 'hosted',
  compatible: 'compatible',
  remote: 'compatible',
  proxy: 'compatible',
  'openai-compatible': 'compatible',
  none: 'none',
};

/**
 * The engine id an option names: `auto` → hosted; `remote`, `compatible`, `proxy` → compatible; `none`;
 * or a factory id. Anything else: VoiceError 400 "Unknown tts_engine: <x>. Supported: <sorted list>".
 */
export function resolveEngineId(kind: 'tts' | 'stt', requested: string | undefined | null, factoryIds: Iterable<string>): string {
  const aliases = kind === 'tts' ? TTS_ALIASES : STT_ALIASES;
  const id = (requested ?? '').trim().toLowerCase() || 'hosted';
  const known = new Set(factoryIds);
  if (Object.hasOwn(aliases, id)) return aliases[id]!;
  if (known.has(id)) return id;
  const supported = [...new Set(['auto', 'hosted', 'compatible', 'none', ...known])].sort();
  throw new VoiceError(`Unknown ${kind}_engine: ${echoInput(requested)}. Supported: ${supported.join(', ')}`, 400, 'unknown_engine');
}
