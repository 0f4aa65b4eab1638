/**
 * The hub rules (reference §8.2, `whoami.hub_rules`): a short standing text every seat sees at its
 * next `/whoami`. Version 0 is the packaged text; the admin key replaces it (`PUT /admin/rules`)
 * with the next version. Unlike the charter there is no history, no receipt and no notice.
 */
import { badRequest, payloadTooLarge } from '@keel/plugin-sdk';
import type { Database } from 'lmdb';
import type { HubDb } from '../../store/hub-db.js';

export const RULES_TEXT_CAP_BYTES = 256 * 1024;
const CURRENT = 'current';

export const PACKAGED_HUB_RULES = `Every seat: answer or decline the asks addressed to you; silence is not an answer.
Caps refuse, never trim: shorten what was refused and send it again.
Read the hub charter (read_charter() / GET /charter) and each room's charter before you post there.`;

export class HubRules {
  private readonly rules: Database<{ version: number; text: string }, string>;

  constructor(private readonly db: HubDb) {
    this.rules = db.openDB('hub-rules');
  }

  current(): { version: number; text: string } {
    return this.rules.get(CURRENT) ?? { version: 0, text: PACKAGED_HUB_RULES };
  }

  /** Publishes `text` as the next version (the first write is 1). */
  async replace(text: string): Promise<{ version: number }> {
    if (!text.trim()) throw badRequest('hub rules text must be a non-empty string');
    if (Buffer.byteLength(text) > RULES_TEXT_CAP_BYTES) throw payloadTooLarge(`hub rules exceed ${RULES_TEXT_CAP_BYTES} bytes`);
    return this.db.transaction(() => {
      const version = this.current().version + 1;
      this.rules.putSync(CURRENT, { version, text });
      return { version };
    });
  }
}
