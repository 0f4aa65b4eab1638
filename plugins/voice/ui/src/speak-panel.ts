/** The "Speak" card: text, voice and speed, then the spoken audio in a player. */
import { el, replaceChildren } from './dom.js';
import type { VoiceApi, VoicesShape } from './voice-api.js';

/** The profiles of the page's language first (a local engine lists hundreds), then the active one if it is another. */
function profilesFor(voices: VoicesShape, language: string): VoicesShape['profiles'] {
  const base = language.split(/[-_]/)[0]!.toLowerCase();
  return voices.profiles.filter((p) => p.active || (p.tags.language ?? p.profile_id).toLowerCase().split(/[-_]/)[0] === base);
}

export function speakPanel(api: VoiceApi, voices: VoicesShape, language: string, onError: (err: unknown) => void): HTMLElement {
  const text = el('textarea', { id: 'speak-text', class: 'vp-input vp-textarea', rows: 5, maxlength: 4096, 'data-testid': 'speak-text', placeholder: 'Type what to say…' });
  text.value = 'Hello from Keel.';
  const voice = el('select', { id: 'speak-voice', class: 'vp-input', 'data-testid': 'speak-voice' },
    el('option', { value: '' }, 'Current voice'),
    ...profilesFor(voices, language).map((p) => el('option', { value: p.profile_id, selected: p.active }, p.label)),
    ...voices.cloned_voices.map((c) => el('option', { value: c.id, selected: c.active }, `${c.name} (cloned)`)),
  );
  const speedOut = el('output', { for: 'speak-speed', class: 'vp-muted' }, '1.0×');
  const speed = el('input', { id: 'speak-speed', type: 'range', min: 0.5, max: 2, step: 0.1, value: 1, class: 'vp-range', 'data-testid': 'speak-speed' });
  speed.addEventListener('input', () => replaceChildren(speedOut, `${Number(speed.value).toFixed(1)}×`));
  const player = el('audio', { controls: true, class: 'vp-player', 'data-testid': 'speak-audio' });
  const info = el('p', { class: 'vp-muted', 'data-testid': 'speak-info', 'aria-live': 'polite' }, 'Nothing spoken yet.');
  const button = el('button', { type: 'submit', class: 'vp-button', 'data-testid': 'speak-button' }, 'Speak');
  let url: string | null = null;

  const form = el('form', { class: 'vp-card', 'aria-labelledby': 'speak-title' },
    el('h2', { id: 'speak-title' }, 'Speak'),
    el('label', { for: 'speak-text' }, 'Text'),
    text,
    el('div', { class: 'vp-row' },
      el('div', { class: 'vp-field' }, el('label', { for: 'speak-voice' }, 'Voice'), voice),
      el('div', { class: 'vp-field' }, el('label', { for: 'speak-speed' }, 'Speed ', speedOut), speed),
    ),
    el('div', { class: 'vp-actions' }, button),
    player,
    info,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void (async () => {
      button.disabled = true;
      replaceChildren(info, 'Speaking…');
      try {
        const began = performance.now();
        const audio = await api.speak({ input: text.value, speed: Number(speed.value), ...(voice.value ? { voice: voice.value } : {}) });
        if (url) URL.revokeObjectURL(url);
        url = URL.createObjectURL(audio);
        player.src = url;
        form.dataset.spoken = String(audio.size);
        replaceChildren(info, `${(audio.size / 1024).toFixed(1)} KiB of ${audio.type || 'audio'} in ${Math.round(performance.now() - began)} ms.`);
        await player.play().catch(() => undefined);
      } catch (err) {
        replaceChildren(info, '');
        onError(err);
      } finally {
        button.disabled = false;
      }
    })();
  });
  return form;
}
