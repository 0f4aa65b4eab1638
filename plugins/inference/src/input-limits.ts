/**
 * Bounds on what one inference request may ask a model to read: the total prompt size and the
 * number of messages (or prompts, or embedding inputs). Without them one 9 MB message held a model
 * worker for a minute and a half. Checked by the `/v1` routes before anything starts (so a stream
 * never opens for a refused request) and again by the service for every other caller (runs).
 */
import { badRequest } from '@keel/plugin-sdk';
import type { ChatMessage } from './providers/provider.js';

export interface InputLimitsConfig {
  /** Most characters (UTF-16 code units) all messages, prompts or inputs of one request may hold together. */
  maxPromptChars: number;
  /** Most messages in one chat request; also the most prompts of one completion or inputs of one embedding request. */
  maxMessages: number;
}

export const DEFAULT_INPUT_LIMITS: InputLimitsConfig = { maxPromptChars: 400_000, maxMessages: 1_000 };

export class InputLimits {
  constructor(private readonly limits: InputLimitsConfig) {}

  chat(messages: ChatMessage[], field = 'body.messages'): void {
    this.count(messages.length, 'messages', field);
    this.size(messages.reduce((n, m) => n + m.content.length, 0), 'The text of the messages', field);
  }

  prompts(prompts: string[], field = 'body.prompt'): void {
    this.count(prompts.length, 'prompts', field);
    this.size(prompts.reduce((n, p) => n + p.length, 0), 'The prompt', field);
  }

  inputs(inputs: string[], field = 'body.input'): void {
    this.count(inputs.length, 'inputs', field);
    this.size(inputs.reduce((n, p) => n + p.length, 0), 'The input', field);
  }

  private count(count: number, what: string, field: string): void {
    if (count > this.limits.maxMessages) {
      throw badRequest(`The request has ${count} ${what}; the limit is ${this.limits.maxMessages} per request (setting inputLimits.maxMessages). Send fewer, or split the work.`, { code: 'too_many_messages', field });
    }
  }

  private size(chars: number, what: string, field: string): void {
    if (chars > this.limits.maxPromptChars) {
      throw badRequest(`${what} (${chars} characters) is over the limit of ${this.limits.maxPromptChars} characters per request (setting inputLimits.maxPromptChars). Shorten the prompt.`, { code: 'prompt_too_large', field });
    }
  }
}
