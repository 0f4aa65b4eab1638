/**
 * The admin's switch of the OpenAI-compatible API (`POST /api/gateway/admin/core-endpoint/disable`,
 * owned by the inference plugin): the audio routes live under `/v1` and honour it too.
 */
import { serviceUnavailable } from '@keel/plugin-sdk';
import type { OpenAiAudioSlot } from './audio-slot-token.js';

export interface ApiSwitch {
  /** Throws the inference plugin's 503 when the API is switched off. */
  check(): void;
}

export function apiSwitch(slot: OpenAiAudioSlot | undefined): ApiSwitch {
  return {
    check() {
      if (slot && !slot.enabled()) {
        throw serviceUnavailable('The OpenAI-compatible API is switched off; an admin can switch it on with POST /api/gateway/admin/core-endpoint/enable.', { code: 'api_disabled' });
      }
    },
  };
}
