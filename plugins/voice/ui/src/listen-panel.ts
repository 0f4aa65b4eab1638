/** The "Listen" card: record from the microphone, then read the transcript. */
import { el, replaceChildren } from './dom.js';
import { Recorder } from './recorder.js';
import type { VoiceApi } from './voice-api.js';

export function listenPanel(api: VoiceApi, language: string, onError: (err: unknown) => void): HTMLElement {
  const meter = el('meter', { class: 'vp-meter', min: 0, max: 1, value: 0, 'aria-label': 'Microphone level', 'data-testid': 'listen-level' });
  const elapsed = el('span', { class: 'vp-muted', 'data-testid': 'listen-seconds' }, '0.0 s');
  const phrases = el('textarea', {
    id: 'listen-phrases', class: 'vp-input vp-textarea vp-small', rows: 3, maxlength: 2000, 'data-testid': 'listen-phrases',
    placeholder: 'Optional: the phrases to expect, one per line (the local recogniser then picks among them)',
  });
  const lang = el('input', { id: 'listen-language', class: 'vp-input vp-narrow', value: language, maxlength: 16, 'data-testid': 'listen-language' });
  const transcript = el('output', { class: 'vp-transcript', 'data-testid': 'transcript', 'aria-live': 'polite' }, '');
  const state = el('p', { class: 'vp-muted', 'data-testid': 'listen-state' }, 'Press Record, speak, then Stop.');
  const button = el('button', { type: 'button', class: 'vp-button', 'data-testid': 'record-button' }, 'Record');
  const recorder = new Recorder((level, seconds) => {
    meter.value = level;
    replaceChildren(elapsed, `${seconds.toFixed(1)} s`);
    elapsed.dataset.seconds = seconds.toFixed(2);
  });

  button.addEventListener('click', () => {
    void (async () => {
      try {
        if (!recorder.recording) {
          await recorder.start();
          button.classList.add('vp-recording');
          replaceChildren(button, 'Stop');
          replaceChildren(state, 'Recording…');
          return;
        }
        button.disabled = true;
        const { wav, seconds } = await recorder.stop();
        button.classList.remove('vp-recording');
        replaceChildren(button, 'Record');
        meter.value = 0;
        replaceChildren(state, `Transcribing ${seconds.toFixed(1)} s…`);
        const text = await api.transcribe(wav, lang.value.trim(), grammarOf(phrases.value));
        replaceChildren(transcript, text || '(nothing recognised)');
        transcript.dataset.done = 'true';
        replaceChildren(state, `Transcribed ${seconds.toFixed(1)} s of audio.`);
      } catch (err) {
        replaceChildren(state, 'Press Record, speak, then Stop.');
        onError(err);
      } finally {
        button.disabled = false;
      }
    })();
  });

  return el('section', { class: 'vp-card', 'aria-labelledby': 'listen-title' },
    el('h2', { id: 'listen-title' }, 'Listen'),
    el('div', { class: 'vp-record' }, button, meter, elapsed),
    el('div', { class: 'vp-row' },
      el('div', { class: 'vp-field vp-grow' }, el('label', { for: 'listen-phrases' }, 'Expected phrases'), phrases),
      el('div', { class: 'vp-field' }, el('label', { for: 'listen-language' }, 'Language'), lang),
    ),
    state,
    el('h3', {}, 'Transcript'),
    transcript,
  );
}

/** The expected phrases as the local recogniser's grammar prompt (`grammar: a | b`), or none. */
function grammarOf(value: string): string {
  const lines = value.split('\n').map((l) => l.replace(/[|]/g, ' ').trim()).filter(Boolean);
  return lines.length ? `grammar: ${lines.join(' | ')}` : '';
}
