/**
 * Calls to the voice plugin's web routes, beside this page (`../api/...` of `<mount>/ui/`), with the
 * gateway token. A refusal carries the route's sentence (`{detail}`); a 401 is `Unauthorized`, so
 * the page asks for the token again.
 */
export class Unauthorized extends Error {}

export class ApiError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

const base = new URL('../', window.location.href);

async function failure(res: Response): Promise<never> {
  let sentence = `HTTP ${res.status}`;
  try {
    const body = (await res.json()) as { detail?: unknown };
    const detail = body.detail;
    if (typeof detail === 'string') sentence = detail;
    else if (detail && typeof detail === 'object' && typeof (detail as { message?: unknown }).message === 'string') sentence = (detail as { message: string }).message;
  } catch {
    // Not JSON: the status says enough.
  }
  if (res.status === 401) throw new Unauthorized(sentence);
  throw new ApiError(sentence, res.status);
}

export class VoiceApi {
  constructor(private readonly token: string) {}

  private async call(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${this.token}`);
    const res = await fetch(new URL(path, base), { ...init, headers, cache: 'no-store' });
    if (!res.ok) await failure(res);
    return res;
  }

  async json<T>(path: string, body?: unknown): Promise<T> {
    const init: RequestInit = body === undefined ? {} : { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
    return (await (await this.call(path, init)).json()) as T;
  }

  /** `POST api/tts`: the spoken audio. */
  async speak(request: Record<string, unknown>): Promise<Blob> {
    const res = await this.call('api/tts', { method: 'POST', body: JSON.stringify(request), headers: { 'content-type': 'application/json' } });
    return res.blob();
  }

  /** `POST api/stt/transcriptions` with a WAV recording. */
  async transcribe(wav: Blob, language: string, prompt: string): Promise<string> {
    const form = new FormData();
    form.append('file', wav, 'recording.wav');
    if (language) form.append('language', language);
    if (prompt) form.append('prompt', prompt);
    const res = await this.call('api/stt/transcriptions', { method: 'POST', body: form });
    return ((await res.json()) as { text: string }).text;
  }
}

export interface StatusShape {
  defaults: { language: string; tts_provider: string; stt_provider: string };
  current: { language: string; voice: string | null; tts_provider: string; speed: number; profile: string | null };
}

export interface VoicesShape {
  profiles: Array<{ id: string; profile_id: string; label: string; active: boolean; tags: { language?: string } }>;
  cloned_voices: Array<{ id: string; name: string; active: boolean }>;
}
