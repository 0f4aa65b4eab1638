/** The web example's routes as `GET /api/status` lists them (`{method, path, maps_to}`, reference B.15). */
export const WEB_ROUTES: ReadonlyArray<{ method: string; path: string; mapsTo: string }> = [
  { method: 'GET', path: '/api/status', mapsTo: 'status' },
  { method: 'GET', path: '/api/voices', mapsTo: 'voice_catalog' },
  { method: 'POST', path: '/api/tts/provider', mapsTo: 'set_tts_engine' },
  { method: 'POST', path: '/api/tts/engine', mapsTo: 'set_tts_engine' },
  { method: 'POST', path: '/api/voices/select', mapsTo: 'set_profile / clone selection' },
  { method: 'POST', path: '/api/voices/clone', mapsTo: 'clone_voice_from_wav_bytes' },
  { method: 'POST', path: '/api/tts', mapsTo: 'speak_to_bytes' },
  { method: 'POST', path: '/api/stt/transcriptions', mapsTo: 'transcribe_from_bytes' },
  { method: 'POST', path: '/api/stt/transcribe', mapsTo: 'transcribe_from_bytes' },
  { method: 'POST', path: '/api/qwen3-tts/codebook', mapsTo: 'set_qwen3_tts_codebook_generation' },
  { method: 'GET', path: '/api/llm', mapsTo: 'llm models listing' },
  { method: 'GET', path: '/api/llm/models', mapsTo: 'llm models listing' },
  { method: 'GET', path: '/ui/', mapsTo: 'page' },
];
