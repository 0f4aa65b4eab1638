/**
 * Speaking messages through the host's callback. One message speaks at a time: pressing Speak on
 * the message being spoken stops it, speaking another stops the first, and switching channel or
 * unmounting stops it too — each stop aborts the signal the callback was given. Speech ends when
 * the callback's promise settles (a callback returning nothing speaks until it is stopped).
 */
import type { SpeakableMessage, SpeakMessage } from './props.js';

interface Speaking {
  id: string;
  controller: AbortController;
}

export class SpeechController {
  private current: Speaking | null = null;

  constructor(private readonly onChange: () => void) {}

  /** Id of the message being spoken. */
  get speaking(): string | null {
    return this.current?.id ?? null;
  }

  /** Starts speaking `message`, or stops it when it is the one being spoken. */
  toggle(speak: SpeakMessage, message: SpeakableMessage): void {
    const again = this.current?.id === message.id;
    this.stop();
    if (again) return;
    const entry: Speaking = { id: message.id, controller: new AbortController() };
    this.current = entry;
    this.onChange();
    let result: unknown;
    try {
      result = speak(Object.freeze({ ...message }), entry.controller.signal);
    } catch {
      this.end(entry);
      return;
    }
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      (result as Promise<unknown>).then(() => this.end(entry), () => this.end(entry));
    }
  }

  /** Aborts whatever is being spoken. */
  stop(): void {
    const entry = this.current;
    if (!entry) return;
    this.current = null;
    entry.controller.abort();
    this.onChange();
  }

  private end(entry: Speaking): void {
    if (this.current !== entry) return;
    this.current = null;
    this.onChange();
  }
}
