/**
 * The web example's "current" choices (reference B.15 `current`: provider, voice, role voices,
 * speed, language, codebook), one record per account: the reference kept one set for its one
 * user; here one account's choice never reaches another account's requests. Kept in memory (the
 * reference's are process state too), at most `maxAccounts` of them, the least recently used
 * forgotten first.
 */

export type VoiceKind = 'base' | 'clone' | 'profile';
export type VoiceRole = 'assistant' | 'user';

/** A chosen voice: a profile of the active provider or a cloned voice id. */
export interface ChosenVoice {
  kind: Exclude<VoiceKind, 'base'>;
  id: string;
}

export interface AccountVoice {
  /** The TTS provider chosen with `POST /api/tts/provider`; null: the plugin's default. */
  ttsProvider: string | null;
  /** null: the provider's base voice. */
  voice: ChosenVoice | null;
  roleVoices: Record<VoiceRole, ChosenVoice | null>;
  speed: number | null;
  language: string | null;
  codebook: { predictor: 'auto' | 'reference'; sampler: 'multinomial' | 'exponential' } | null;
}

export function freshChoice(): AccountVoice {
  return { ttsProvider: null, voice: null, roleVoices: { assistant: null, user: null }, speed: null, language: null, codebook: null };
}

export class AccountVoices {
  private readonly choices = new Map<string, AccountVoice>();

  constructor(private readonly maxAccounts: number) {}

  /** The account's choices (a copy: change them with `update`). */
  get(account: string): AccountVoice {
    const found = this.choices.get(account);
    return structuredClone(found ?? freshChoice());
  }

  /** Applies `change` to the account's choices and keeps them (most recently used). */
  update(account: string, change: (choice: AccountVoice) => void): AccountVoice {
    const choice = this.get(account);
    change(choice);
    this.choices.delete(account);
    this.choices.set(account, choice);
    while (this.choices.size > this.maxAccounts) this.choices.delete(this.choices.keys().next().value as string);
    return structuredClone(choice);
  }
}
