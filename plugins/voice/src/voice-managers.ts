/** Builds the voice manager of one set of owner settings (wired to `@keel/voice` once it lands). */
import { VoiceError } from '@keel/voice';
import type { VoiceManagerPort } from './manager-port.js';
import type { OwnerSettings } from './owner-settings.js';

export interface ManagerBuilder {
  build(settings: OwnerSettings): VoiceManagerPort;
  canonical: { tts(id: string): string | null; stt(id: string): string | null; cloning(id: string): string | null };
  close(): Promise<void>;
}

export function managerBuilder(): ManagerBuilder {
  const known = (ids: string[]) => (id: string) => (ids.includes(id) ? id : null);
  return {
    build(): VoiceManagerPort {
      throw new VoiceError('The voice manager is not part of this build yet.', 501, 'not_built');
    },
    canonical: { tts: known(['hosted', 'compatible', 'espeak', 'none']), stt: known(['hosted', 'compatible', 'pocketsphinx']), cloning: known(['hosted', 'compatible']) },
    close: async () => undefined,
  };
}
