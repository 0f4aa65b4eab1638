/**
 * The voice page: asks for the gateway token, then shows this account's provider and voice, a card
 * to type and hear speech and a card to record from the microphone and read the transcript.
 */
import { el, replaceChildren } from './dom.js';
import { listenPanel } from './listen-panel.js';
import { speakPanel } from './speak-panel.js';
import { forgetToken, readToken, saveToken } from './token-store.js';
import { tokenForm } from './token-form.js';
import { Unauthorized, VoiceApi, type StatusShape, type VoicesShape } from './voice-api.js';

const root = document.getElementById('voice-page')!;

function header(status: StatusShape | null): HTMLElement {
  const signOut = el('button', { type: 'button', class: 'vp-button vp-quiet', 'data-testid': 'sign-out' }, 'Forget token');
  signOut.addEventListener('click', () => {
    forgetToken();
    void show(null);
  });
  return el('header', { class: 'vp-header' },
    el('h1', {}, 'Voice'),
    status ? el('p', { class: 'vp-muted', 'data-testid': 'status-line' },
      `Speech: ${status.current.tts_provider} · voice: ${status.current.voice ?? 'base'} · recognition: ${status.defaults.stt_provider} · language: ${status.current.language}`) : el('p', { class: 'vp-muted' }, 'Speak and listen with this server\'s voice engines.'),
    status ? signOut : null,
  );
}

function errorBanner(): { node: HTMLElement; show(err: unknown): void } {
  const node = el('p', { class: 'vp-error vp-banner', role: 'alert', 'data-testid': 'page-error', hidden: true });
  return {
    node,
    show(err) {
      if (err instanceof Unauthorized) {
        forgetToken();
        void show(err.message);
        return;
      }
      replaceChildren(node, err instanceof Error ? err.message : String(err));
      node.hidden = false;
    },
  };
}

async function show(refusal: string | null): Promise<void> {
  const token = readToken();
  if (!token) {
    replaceChildren(root, header(null), el('main', { class: 'vp-main vp-narrow-main' }, tokenForm((t) => {
      saveToken(t);
      void show(null);
    }, refusal)));
    return;
  }
  const api = new VoiceApi(token);
  let status: StatusShape;
  let voices: VoicesShape;
  try {
    [status, voices] = await Promise.all([api.json<StatusShape>('api/status'), api.json<VoicesShape>('api/voices')]);
  } catch (err) {
    forgetToken();
    await show(err instanceof Error ? err.message : String(err));
    return;
  }
  const banner = errorBanner();
  replaceChildren(root,
    header(status),
    banner.node,
    el('main', { class: 'vp-main', 'data-testid': 'voice-main' },
      speakPanel(api, voices, status.current.language, (err) => banner.show(err)),
      listenPanel(api, status.current.language, (err) => banner.show(err)),
    ),
  );
}

void show(null);
