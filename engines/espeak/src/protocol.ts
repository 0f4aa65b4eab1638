/** Tasks of the espeak worker threads and their answers (structured-cloned across the thread boundary). */

export interface VoicesTask {
  op: 'voices';
  /** Absolute path of `espeak-ng.js` (the npm package's Emscripten glue). */
  modulePath: string;
}

export interface SpeakTask {
  op: 'speak';
  modulePath: string;
  /** Already validated and neutralised by the host; written to a file in the module's memory FS. */
  text: string;
  /** A voice from espeak's own list, optionally `+variant`; validated by the host. */
  voice: string;
  /** espeak's `-s`: words per minute. */
  wpm: number;
}

/** Compiles the module once in this thread, so the first request does not pay for it. */
export interface WarmTask {
  op: 'warm';
  modulePath: string;
}

export type EspeakTask = VoicesTask | SpeakTask | WarmTask;

/** One row of `espeak-ng --voices`. */
export interface EspeakVoiceRow {
  /** Priority column: lower is preferred when several voices serve a language. */
  priority: number;
  /** The voice name `-v` accepts (e.g. `en-us`). */
  name: string;
  gender: string;
  /** Human name, underscores turned to spaces (e.g. `English (America)`). */
  label: string;
  /** Voice file inside espeak-ng-data (e.g. `gmw/en-US`). */
  file: string;
  /** Other languages this voice serves, with their priority (`(en 3)` → `{language: 'en', priority: 3}`). */
  others: { language: string; priority: number }[];
}

export interface VoicesResult {
  ok: true;
  voices: EspeakVoiceRow[];
  /** Voice variants (`voices/!v`): appended as `+name` to a voice (e.g. `en-us+f3`). */
  variants: string[];
  /** e.g. `eSpeak NG text-to-speech: 1.52-dev`. */
  version: string;
}

export interface SpeakResult {
  ok: true;
  samples: Float32Array;
  sampleRate: number;
}

export interface WarmResult {
  ok: true;
  warmed: true;
}

export interface EspeakFailure {
  ok: false;
  /** `runtime_missing`: the module or its wasm could not load. `engine_error`: espeak failed on this input. */
  code: 'runtime_missing' | 'engine_error';
  message: string;
}
